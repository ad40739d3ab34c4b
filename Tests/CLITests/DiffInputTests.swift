import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// `--diff` on input that is wrong: each a clear line, the rest of the run
/// goes on, nothing half-written; and its options' effects from the
/// command line.
final class DiffInputTests: CLITestCase {
    private func shot(_ dots: [(Int, Int)] = [], width: Int = 64, height: Int = 48) -> [UInt8] {
        let pixels = PixelBuffer(width: width, height: height) { x, y in
            dots.contains(where: { $0 == (x, y) }) ? .black : RGB(red: 230, green: 235, blue: 240)
        }
        return try! Encoder.encode(pixels, suffix: ".png", orientation: nil).bytes
    }

    private func pair(_ name: String, _ before: [UInt8], _ after: [UInt8]) {
        write(before, to: "base/" + name)
        write(after, to: "shots/" + name)
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        makeFolder("base")
        makeFolder("shots")
    }

    func testBaselineMissingOrNotAFolder() throws {
        pair("a.png", shot(), shot([(1, 1)]))
        assertFailure(try collage(["--diff", "nowhere", "shots", "-o", "d.png"]), status: 66, mentions: ["BASELINE", "nowhere"])
        write(b("x"), to: "file")
        assertFailure(try collage(["--diff", "file", "shots", "-o", "d.png"]), status: 64, mentions: ["not a folder"])
        assertFailure(try collage(["--diff", "base", "--threshold", "2", "shots"]), status: 64, mentions: ["--threshold"])
        assertFailure(try collage(["--diff", "base", "--ignore", "1,2,3", "shots"]), status: 64, mentions: ["--ignore"])
        assertFailure(try collage(["--diff", "base", "--tolerance", "5x", "shots"]), status: 64, mentions: ["--tolerance"])
        assertFailure(try collage(["--junit", "j.xml", "shots"]), status: 64, mentions: ["--diff"])
        assertFailure(try collage(["--diff", "base", "--per-folder", "shots", "-o", "{dir}.png"]), status: 64,
                      mentions: ["--per-folder"])
        assertFailure(try collage(["--diff", "base", "--flag", "blank", "shots"]), status: 64, mentions: ["--flag"])
        XCTAssertFalse(exists("d.png"))
    }

    /// Not an image, a truncated PNG, a 30000x30000 header, one side
    /// unreadable: each `failed` with its reason, the other pairs compared
    /// and shown, status 65, no temporary file left.
    func testBadFilesAreEachOneLineAndTheRunGoesOn() throws {
        pair("good.png", shot(), shot([(3, 3)]))
        pair("text.png", shot(), b("<html>not an image</html>"))
        pair("cut.png", shot(), Array(shot([(5, 5)]).prefix(80)))
        let giant = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Hostile.ihdr(30000, 30000) + Hostile.pngChunk("IEND", [])
        pair("giant.png", shot(), giant)
        pair("locked.png", shot(), shot([(7, 7)]))
        let user = try nonRootUser()
        chmod(path("shots/locked.png"), 0)
        giveTo(user, "")
        settle()
        let result = try collage(["--diff", "base", "--json", "shots", "-o", "d.png"], as: user)
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        let failed = Dictionary(events(all, "failed").map { ($0["path"] as? String ?? "", $0["error"] as? String ?? "") },
                                uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(Set(failed.keys), ["shots/text.png", "shots/cut.png", "shots/giant.png", "shots/locked.png"])
        XCTAssertTrue(failed["shots/giant.png"]?.contains("30000x30000") == true, "\(failed)")
        XCTAssertTrue(failed["shots/locked.png"]?.contains("ermission") == true, "\(failed)")
        XCTAssertEqual(events(all, "compared").map { $0["path"] as? String }, ["shots/good.png"])
        XCTAssertEqual(events(all, "written").map { $0["images"] as? [String] }, [["shots/good.png"]])
        XCTAssertEqual(listingText().filter { $0.contains("collage-tmp") }, [])
        settle()
        let text = try collage(["--diff", "base", "shots", "-o", "d.png"], as: user)
        XCTAssertEqual(text.status, 65)
        XCTAssertEqual(text.stderrLines.filter { $0.contains("shots/") }.count, 4, text.stderrText)
    }

    /// --threshold, --ignore, --tolerance and --count-aa from the command line;
    /// different sizes are resized, with "size".
    func testOptionsChangeTheCount() throws {
        pair("dots.png", shot(), shot([(1, 1), (30, 20), (31, 20)]))
        pair("wide.png", shot(), shot(width: 80))
        func pixels(_ extra: [String]) throws -> [String: [String: Any]] {
            let result = try collage(["--diff", "base", "--json"] + extra + ["shots", "-o", "d.png"])
            return Dictionary(events(jsonEvents(result), "compared").map { ($0["path"] as? String ?? "", $0) },
                              uniquingKeysWith: { a, _ in a })
        }
        let plain = try pixels([])
        XCTAssertEqual(plain["shots/dots.png"]?["pixels"] as? Int, 3)
        XCTAssertEqual(plain["shots/wide.png"]?["pixels"] as? Int, 0, "compared on the common part, which is the same")
        XCTAssertEqual(plain["shots/wide.png"]?["size"] as? String, "64x48 -> 80x48")
        XCTAssertEqual(plain["shots/wide.png"]?["status"] as? String, "resized", "the common part is the same")
        XCTAssertEqual(try pixels(["--ignore", "0,0,5,5", "--ignore", "30,20,1,1"])["shots/dots.png"]?["pixels"] as? Int, 1)
        XCTAssertEqual(try pixels(["--threshold", "1"])["shots/dots.png"]?["pixels"] as? Int, 0)
        XCTAssertEqual(try pixels(["--tolerance", "3"])["shots/dots.png"]?["status"] as? String, "unchanged")
        XCTAssertEqual(try pixels(["--tolerance", "2"])["shots/dots.png"]?["status"] as? String, "changed")
        XCTAssertEqual(try pixels(["--tolerance", "1%"])["shots/dots.png"]?["status"] as? String, "unchanged")
        XCTAssertEqual(try pixels(["--tolerance", "50%"])["shots/wide.png"]?["status"] as? String, "resized",
                       "a size change is told whatever the tolerance")
    }

    /// Sub-pixel edges are noise, which does not fail unless --fail-on
    /// lists it; --fail-on without changed lets a change pass; a status
    /// that is not one is a usage error.
    func testFailOn() throws {
        func edge(_ at: Double) -> [UInt8] {
            let pixels = PixelBuffer(width: 64, height: 48) { x, _ in
                let value = UInt8((255 * (1 - min(1, max(0, at - Double(x))))).rounded())
                return RGB(red: value, green: value, blue: value)
            }
            return try! Encoder.encode(pixels, suffix: ".png", orientation: nil).bytes
        }
        pair("edge.png", edge(20.3), edge(20.6))
        let plain = try collage(["--diff", "base", "--json", "--junit", "j.xml", "shots", "-o", "d.png"])
        XCTAssertEqual(plain.status, 0, plain.summary)
        XCTAssertEqual(events(jsonEvents(plain), "compared").map { $0["status"] as? String }, ["noise"])
        XCTAssertFalse(exists("d.png"), "nothing fails: nothing written")
        XCTAssertTrue(String(decoding: try XCTUnwrap(contents("j.xml")), as: UTF8.self).contains("failures=\"0\""))
        let listed = try collage(["--diff", "base", "--json", "--fail-on", "noise,changed", "shots", "-o", "d.png"])
        XCTAssertEqual(listed.status, 1, listed.summary)
        XCTAssertTrue(exists("d.png"))
        pair("dot.png", shot(), shot([(5, 5)]))
        XCTAssertEqual(try collage(["--diff", "base", "--fail-on", "added,removed", "shots", "-o", "e.png"]).status, 0)
        XCTAssertEqual(try collage(["--diff", "base", "shots", "-o", "e.png"]).status, 1)
        assertFailure(try collage(["--diff", "base", "--fail-on", "changed,moved", "shots", "-o", "d.png"]), status: 64,
                      mentions: ["--fail-on", "moved"])
        assertFailure(try collage(["--fail-on", "changed", "shots", "-o", "d.png"]), status: 64, mentions: ["--diff"])
    }

    /// --skip-unchanged: the same trees and options again do nothing and
    /// still say that something differs; a changed baseline file redoes it.
    func testSkipUnchangedKeepsStatusOne() throws {
        pair("a.png", shot(), shot([(10, 10)]))
        let first = try collage(["--diff", "base", "--skip-unchanged", "shots", "-o", "d.png"])
        XCTAssertEqual(first.status, 1, first.summary)
        let sheet = contents("d.png")
        let again = try collage(["--diff", "base", "--skip-unchanged", "--json", "shots", "-o", "d.png"])
        XCTAssertEqual(again.status, 1, again.summary)
        XCTAssertEqual(events(jsonEvents(again), "unchanged").count, 1)
        XCTAssertEqual(events(jsonEvents(again), "compared").count, 0)
        XCTAssertEqual(contents("d.png"), sheet)
        write(shot([(10, 10)]), to: "base/a.png")
        // Another modification time whatever the file system's resolution: set, not waited for.
        XCTAssertEqual(try runProcess([b("touch"), b("-d"), b("@1000000000"), b(path("base/a.png"))]).status, 0)
        let redone = try collage(["--diff", "base", "--skip-unchanged", "--json", "shots", "-o", "d.png"])
        XCTAssertEqual(redone.status, 0, redone.summary)
        XCTAssertEqual(events(jsonEvents(redone), "compared").map { $0["status"] as? String }, ["unchanged"])
    }

    /// --shard: each pair is one shard's (FNV-1a of its path); together the
    /// shards compare every pair once.
    func testShardsSplitThePairs() throws {
        for index in 0..<8 { pair("p\(index).png", shot(), shot([(index, 1)])) }
        var seen: [String] = []
        for shard in 0..<3 {
            let result = try collage(["--diff", "base", "--sheets", "--shard", "\(shard)/3", "--json", "shots",
                                      "-o", "d-{n}.png"])
            XCTAssertEqual(result.status, 1, result.summary)
            seen += events(jsonEvents(result), "compared").compactMap { $0["path"] as? String }
        }
        XCTAssertEqual(seen.sorted(), (0..<8).map { "shots/p\($0).png" })
    }

    /// A file named, or a list on standard input: its path as given, made
    /// relative, is its path below BASELINE; nothing is `removed` then.
    func testFilesAndListsPairByThePathAsGiven() throws {
        makeFolder("base/shots")
        write(shot(), to: "base/shots/a.png")
        write(shot([(2, 2)]), to: "shots/a.png")
        write(shot(), to: "base/shots/b.png")
        write(shot(), to: "shots/b.png")
        write(shot(), to: "base/shots/gone.png")
        for arguments in [["shots/a.png", "./shots/b.png"], ["-"]] {
            let result = try collage(["--diff", "base", "--json"] + arguments + ["-o", "d.png"],
                                     stdin: b("shots/a.png\n./shots/b.png\n"))
            XCTAssertEqual(result.status, 1, result.summary)
            let pairs = events(jsonEvents(result), "compared")
            XCTAssertEqual(pairs.map { $0["baseline"] as? String }, ["base/shots/a.png", "base/shots/b.png"])
            XCTAssertEqual(pairs.map { $0["status"] as? String }, ["changed", "unchanged"])
        }
    }
}
