import Foundation
import Glibc
import XCTest

/// The same inputs and options give the same output bytes as the release
/// whose digests are recorded below: a fixed set of images (samples/) run
/// through every option that shapes an output. A change of layout, decode
/// size, crop, colour handling or encoder settings shows here as a changed
/// digest. (Recorded with Debian's libvips 8.14.1; another libvips may
/// encode differently, which is why the test says which it ran with.)
/// Re-recorded when every image began to record its resolution (72 dpi:
/// JPEG's JFIF density, PNG's pHYs, TIFF's and WebP's EXIF resolution),
/// with every output's pixels checked identical to the release before.
final class GoldenBytesTests: CLITestCase {
    /// Each case: the arguments, then each output and its SHA-256.
    private static let cases: [(arguments: [String], stdin: String?, outputs: [(String, String)])] = [
        (["in", "-o", "a.jpg"], nil, [("a.jpg", "50c5922b26a734c27652815f7fc6f0d16476c76c3ad1ac36aafa76a9def4a35b")]),
        (["--allow-portrait", "--max", "5", "--size", "900x500", "--background", "black", "in", "-o", "b.png"], nil,
         [("b.png", "34a3311f03b9d3dd2d217227fdd884f20f8d8d21f4d8b8ec75edc3f08f99cf29")]),
        (["--sheets", "--max", "4", "--size", "640x480", "--allow-portrait", "--quality", "80", "in", "-o", "c-{n}.webp"],
         nil, [("c-0001.webp", "49516e46925722ca127c22d7ecbeda3207178144e82dd076677d9d1064a8d061"), ("c-0002.webp", "b85e8cd280b42a2171e985e39e4d60ae267660686df4534c08701d0b8c151038")]),
        (["--require-even", "--max", "3", "--background", "#336699", "in", "-o", "d.tif"], nil, [("d.tif", "091650a67759893c984a7a89f6d8d7a08958dc060f24bfacde74131a18b7b8bf")]),
        (["--per-folder", "--size", "400x300", "tree", "-o", "e-{path}.png"], nil,
         [("e-one.png", "2bae98091c34b8780bb76000e987d81e4f28cd146c3e0759c19a1afbf9df1a92"), ("e-two_deeper.png", "26fee797b38fb1eb418c3c5148868ef2b2e956e205874570c868b0500ee63b1f")]),
        (["-0", "--max", "2", "--quality", "90", "--jobs", "1", "-", "-o", "f.jpg"],
         "in/dune.jpg\u{0}in/aqua.jpg\u{0}in/raindrops.jpg\u{0}", [("f.jpg", "92ecef3ccdadaabe138f12b94903bfd8e2b7778c3728b65b2ed0314c05f58d79")]),
        (["--sheets", "--max", "4", "--jobs", "1", "--size", "500x500", "in", "-o", "g.png"], nil,
         [("g-0001.png", "fed02d21d42e9124cdb4c11e1288d5a489a0c09ea8b51136b7dafa049daa921a"), ("g-0002.png", "6c3d46a1a93d9f059e2eaf2ba6b56c792d8624240553712f215d9fb551a64a29")]),
        (["--max", "1", "--size", "301x199", "in/storm-rotated.jpg", "-o", "h.png"], nil, [("h.png", "bc388f7ea6325360f07f80d2268f77b6a840f14aa191ef59945ecca492913a35")]),
    ]

    private func prepare() {
        makeFolder("in")
        for name in ["aqua.jpg", "blinds-portrait.jpg", "dune.jpg", "greenmeadow.jpg", "raindrops.jpg",
                     "storm-rotated.jpg", "twowings.jpg", "wood-sideways.jpg"] {
            copySample(name, to: "in/" + name)
        }
        makeFolder("tree")
        makeFolder("tree/one")
        makeFolder("tree/two")
        makeFolder("tree/two/deeper")
        copySample("aqua.jpg", to: "tree/one/aqua.jpg")
        copySample("dune.jpg", to: "tree/one/dune.jpg")
        copySample("greenmeadow.jpg", to: "tree/one/greenmeadow.jpg")
        copySample("twowings.jpg", to: "tree/two/deeper/twowings.jpg")
        copySample("storm-rotated.jpg", to: "tree/two/deeper/storm.jpg")
    }

    func testEveryOptionOfTheFirstReleaseWritesTheSameBytes() throws {
        prepare()
        var report: [String] = []
        var mismatches = 0
        for (arguments, stdin, outputs) in Self.cases {
            let result = try collage(arguments, stdin: stdin.map { Array($0.utf8) })
            XCTAssertTrue(result.status == 0, "collage \(arguments.joined(separator: " ")): \(result.stderrText)")
            for (name, expected) in outputs {
                let digest = try sha256(path(name))
                report.append("(\"\(name)\", \"\(digest)\")")
                if digest != expected {
                    mismatches += 1
                    XCTFail("collage \(arguments.joined(separator: " ")): \(name) is \(digest), was \(expected)")
                }
            }
        }
        if mismatches > 0 { print("digests now:\n" + report.joined(separator: "\n")) }
    }

    private func sha256(_ file: String) throws -> String {
        let result = try RunningProcess(arguments: [b("sha256sum"), b(file)], stdin: nil, directory: dir).wait(timeout: 60)
        return String(String(decoding: result.stdout, as: UTF8.self).prefix(64))
    }
}
