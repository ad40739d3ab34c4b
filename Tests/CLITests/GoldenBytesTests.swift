import Foundation
import Glibc
import XCTest

/// The same inputs and options give the same output bytes as the release
/// whose digests are recorded below: a fixed set of images (samples/) run
/// through every option that shapes an output. A change of layout, decode
/// size, crop, colour handling or encoder settings shows here as a changed
/// digest. (Recorded with Debian's libvips 8.14.1; another libvips may
/// encode differently, which is why the test says which it ran with.)
final class GoldenBytesTests: CLITestCase {
    /// Each case: the arguments, then each output and its SHA-256.
    private static let cases: [(arguments: [String], stdin: String?, outputs: [(String, String)])] = [
        (["in", "-o", "a.jpg"], nil, [("a.jpg", "7a4b9d76d32dfde73c0fd1a38516527283cd94c40e72d09b1407642c071ad666")]),
        (["--allow-portrait", "--max", "5", "--size", "900x500", "--background", "black", "in", "-o", "b.png"], nil,
         [("b.png", "61c80079d3ef60de6b391db5fcb6cf563c7e5a5f2056a02a5cc202565aed88fe")]),
        (["--sheets", "--max", "4", "--size", "640x480", "--allow-portrait", "--quality", "80", "in", "-o", "c-{n}.webp"],
         nil, [("c-0001.webp", "ace59f6286aeb017c9cbf23b4a7798409cbaacfd5a78545783d77473c286cc5b"), ("c-0002.webp", "730bb5ad72b209a0f96cdaf99a9174a4a36ae6893f8d367e34d5b868b8d458f0")]),
        (["--require-even", "--max", "3", "--background", "#336699", "in", "-o", "d.tif"], nil, [("d.tif", "5d227cfa60e005994a91709b9899a457f92ca347d5852eecbd090e49746d3160")]),
        (["--per-folder", "--size", "400x300", "tree", "-o", "e-{path}.png"], nil,
         [("e-one.png", "563b66531f34fef1813f8102aca6bfedc94cb1ade56f788d58aa4215c131aab9"), ("e-two_deeper.png", "42765e25c4549c44366edaa478f4c03968240dbb214e22d6c5641842c1220a22")]),
        (["-0", "--max", "2", "--quality", "90", "--jobs", "1", "-", "-o", "f.jpg"],
         "in/dune.jpg\u{0}in/aqua.jpg\u{0}in/raindrops.jpg\u{0}", [("f.jpg", "4d29ed58e44f873ee301582f685166fdca393168e47ce9e853627b0b29b62f63")]),
        (["--sheets", "--max", "4", "--jobs", "1", "--size", "500x500", "in", "-o", "g.png"], nil,
         [("g-0001.png", "bee32fe047ba77c89e023f70e94cf77de7ba6f95f4f9003f8a558a1b56f90dcd"), ("g-0002.png", "f845df4fffec2ce9ba33f6378abe382f63e9a9bbd6e11e5c8c02c3a3704d914f")]),
        (["--max", "1", "--size", "301x199", "in/storm-rotated.jpg", "-o", "h.png"], nil, [("h.png", "9bad189f6d007fcd052f244d6efe6ce296e4528f6aafd02434aabba6cbd6b29c")]),
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
