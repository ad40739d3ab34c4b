import Foundation
import Glibc
import XCTest

/// The same inputs and options give the same output pixels as the release
/// whose digests are recorded below: a fixed set of images (samples/, all
/// without an ICC profile) run through every option that shapes an output.
/// A change of layout, decode size, crop, colour handling or encoder
/// settings shows here as a changed digest. The digest is of the output's
/// pixels as libvips decodes them (`vips rawsave`), not of its bytes: the
/// bytes changed once, by the sRGB profile every output now carries, and
/// the pixels did not. (Recorded with Debian's libvips 8.14.1; another
/// libvips may encode differently, which is why the test says which it ran
/// with.)
final class GoldenBytesTests: CLITestCase {
    /// Each case: the arguments, then each output and its SHA-256.
    private static let cases: [(arguments: [String], stdin: String?, outputs: [(String, String)])] = [
        (["in", "-o", "a.jpg"], nil, [("a.jpg", "c7e0099411111a0c86562ab392f171c5b34edf2e2c3fb3398895a056521fc480")]),
        (["--allow-portrait", "--max", "5", "--size", "900x500", "--background", "black", "in", "-o", "b.png"], nil,
         [("b.png", "b8baee47dd5a8b12887fe09999edbbbe3138e54a248519f4f340f1bb78822b03")]),
        (["--sheets", "--max", "4", "--size", "640x480", "--allow-portrait", "--quality", "80", "in", "-o", "c-{n}.webp"],
         nil, [("c-0001.webp", "f64277debe49b19a36a3cf5a65f1302f83de3cbdacb9c17e07cf3f82aec8b270"), ("c-0002.webp", "0c10f9ae7e3678a8298bbf2c2cf11dde61cc1285124921f529badb2f132bf48f")]),
        (["--require-even", "--max", "3", "--background", "#336699", "in", "-o", "d.tif"], nil, [("d.tif", "79fe1af17f664fc6e8d5a5406399d5beafb8a1039576d4e7071254ebb801b400")]),
        (["--per-folder", "--size", "400x300", "tree", "-o", "e-{path}.png"], nil,
         [("e-one.png", "93885ca4d8c1941b122630fc86e78a229c837886dea2eb4bbb9fd3bcdf3b199f"), ("e-two_deeper.png", "2d049e205b34a1c9795001807075eb11e1438ee2903198ad04f08ef913ff6585")]),
        (["-0", "--max", "2", "--quality", "90", "--jobs", "1", "-", "-o", "f.jpg"],
         "in/dune.jpg\u{0}in/aqua.jpg\u{0}in/raindrops.jpg\u{0}", [("f.jpg", "49df6a7cfa15f371f260d3cb41c2c11879bab2dbf82dfd91eab15d32e465c27c")]),
        (["--sheets", "--max", "4", "--jobs", "1", "--size", "500x500", "in", "-o", "g.png"], nil,
         [("g-0001.png", "675ad990f47f9c41b393454fe4ca153436c736307613a79ec8485dea94b75a8c"), ("g-0002.png", "46ce21c87339c192c82cb4badc49ce313c91311c8006f43f33345c5860eb996e")]),
        (["--max", "1", "--size", "301x199", "in/storm-rotated.jpg", "-o", "h.png"], nil, [("h.png", "a2887f8ce904b66bf6dfb24e5626c4453e94b9f685b9e3ff3e798b7d7ed7a231")]),
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

    func testEveryOptionOfTheFirstReleaseWritesTheSamePixels() throws {
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

    /// The SHA-256 of the file's pixels, decoded by libvips.
    private func sha256(_ file: String) throws -> String {
        let raw = file + ".raw"
        let decoded = try RunningProcess(arguments: [b("vips"), b("rawsave"), b(file), b(raw)], stdin: nil, directory: dir)
            .wait(timeout: 60)
        XCTAssertEqual(decoded.status, 0, decoded.stderrText)
        let result = try RunningProcess(arguments: [b("sha256sum"), b(raw)], stdin: nil, directory: dir).wait(timeout: 60)
        return String(String(decoding: result.stdout, as: UTF8.self).prefix(64))
    }
}
