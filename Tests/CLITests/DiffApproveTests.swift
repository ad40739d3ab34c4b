import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// `--diff`'s small forms and approving: `--dry-run` (reports, no sheet),
/// two files compared whatever their names, and `--approve`.
final class DiffApproveTests: CLITestCase {
    func shot(_ dots: [(Int, Int)] = [], width: Int = 64, height: Int = 48) -> [UInt8] {
        let pixels = PixelBuffer(width: width, height: height) { x, y in
            dots.contains(where: { $0 == (x, y) }) ? .black : RGB(red: 230, green: 235, blue: 240)
        }
        return try! Encoder.encode(pixels, suffix: ".png", orientation: nil).bytes
    }

    func pair(_ name: String, _ before: [UInt8], _ after: [UInt8]) {
        write(before, to: "base/" + name)
        write(after, to: "shots/" + name)
    }

    func statuses(_ result: ProcessResult) -> [String: String] {
        Dictionary(events(jsonEvents(result), "compared").map { ($0["path"] as? String ?? "", $0["status"] as? String ?? "") },
                   uniquingKeysWith: { a, _ in a })
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        makeFolder("base")
        makeFolder("shots")
    }

    /// --dry-run compares, writes JUnit and Markdown, exits 1 when something
    /// fails, but draws no sheet (an old one is left as it is).
    func testDryRunWritesReportsButNoSheet() throws {
        pair("a.png", shot(), shot([(3, 3)]))
        pair("same.png", shot(), shot())
        write(b("old sheet"), to: "d.png")
        let result = try collage(["--diff", "base", "--dry-run", "--json", "--junit", "j.xml", "--markdown", "s.md",
                                  "shots", "-o", "d.png"])
        XCTAssertEqual(result.status, 1, result.summary)
        assertValidEventStream(result, "--diff --dry-run")
        XCTAssertEqual(statuses(result), ["shots/a.png": "changed", "shots/same.png": "unchanged"])
        XCTAssertEqual(events(jsonEvents(result), "written").count, 0)
        XCTAssertEqual(events(jsonEvents(result), "planned").count, 0)
        XCTAssertEqual(contents("d.png"), b("old sheet"))
        XCTAssertTrue(String(decoding: try XCTUnwrap(contents("j.xml")), as: UTF8.self).contains("failures=\"1\""))
        XCTAssertTrue(String(decoding: try XCTUnwrap(contents("s.md")), as: UTF8.self).contains("a.png"))
        write(shot([(3, 3)]), to: "base/a.png")
        let same = try collage(["--diff", "base", "--dry-run", "shots", "-o", "d.png"])
        XCTAssertEqual(same.status, 0, same.summary)
        XCTAssertEqual(contents("d.png"), b("old sheet"))
    }

    /// --diff A.png B.png: the two files are one pair whatever their names;
    /// a file BASELINE with a folder INPUT is still a usage error.
    func testTwoFilesArePairedWhateverTheirNames() throws {
        write(shot(), to: "base/old.png")
        write(shot([(5, 6)]), to: "shots/new-name.png")
        let result = try collage(["--diff", "base/old.png", "--json", "shots/new-name.png", "-o", "d.png"])
        XCTAssertEqual(result.status, 1, result.summary)
        let pairs = events(jsonEvents(result), "compared")
        XCTAssertEqual(pairs.count, 1)
        XCTAssertEqual(pairs.first?["path"] as? String, "shots/new-name.png")
        XCTAssertEqual(pairs.first?["baseline"] as? String, "base/old.png")
        XCTAssertEqual(pairs.first?["status"] as? String, "changed")
        XCTAssertEqual(pairs.first?["pixels"] as? Int, 1)
        XCTAssertTrue(exists("d.png"))
        write(shot(), to: "shots/same.png")
        let same = try collage(["--diff", "base/old.png", "--json", "shots/same.png", "-o", "e.png"])
        XCTAssertEqual(same.status, 0, same.summary)
        XCTAssertEqual(statuses(same), ["shots/same.png": "unchanged"])
        assertFailure(try collage(["--diff", "base/old.png", "shots", "-o", "f.png"]), status: 64, mentions: ["not a folder"])
        XCTAssertFalse(exists("e.png"))
        XCTAssertFalse(exists("f.png"))
    }

    func approved(_ result: ProcessResult) -> [String: String] {
        Dictionary(events(jsonEvents(result), "approved").map { ($0["path"] as? String ?? "", $0["status"] as? String ?? "") },
                   uniquingKeysWith: { a, _ in a })
    }

    /// --approve with no path: every pair that fails becomes the baseline
    /// (changed replaced, added added with its folder made, removed
    /// removed), each reported; nothing else is written; exit 0; a rerun
    /// finds nothing that differs.
    func testApproveMakesEveryFailingPairTheBaseline() throws {
        pair("a.png", shot(), shot([(3, 3)]))
        pair("same.png", shot(), shot())
        makeFolder("shots/sub")
        write(shot([(9, 9)]), to: "shots/sub/new.png")
        write(shot(), to: "base/gone.png")
        let result = try collage(["--diff", "base", "--json", "--junit", "j.xml", "--markdown", "s.md", "shots",
                                  "-o", "d.png", "--approve"])
        XCTAssertEqual(result.status, 0, result.summary)
        assertValidEventStream(result, "--approve")
        XCTAssertEqual(approved(result), ["shots/a.png": "changed", "shots/sub/new.png": "added", "shots/gone.png": "removed"])
        XCTAssertEqual(events(jsonEvents(result), "approved").first { $0["path"] as? String == "shots/a.png" }?["baseline"]
                       as? String, "base/a.png")
        XCTAssertEqual(contents("base/a.png"), contents("shots/a.png"))
        XCTAssertEqual(contents("base/sub/new.png"), contents("shots/sub/new.png"))
        XCTAssertFalse(exists("base/gone.png"))
        for written in ["d.png", "j.xml", "s.md"] { XCTAssertFalse(exists(written), written) }
        XCTAssertEqual(listingText().filter { $0.contains("collage-") }, [])
        let again = try collage(["--diff", "base", "--json", "shots", "-o", "d.png"])
        XCTAssertEqual(again.status, 0, again.summary)
        XCTAssertEqual(Set(statuses(again).values), ["unchanged"])
    }

    /// --approve PATH...: only the images named (by their path or their
    /// path below the roots); a path not in the run is one clear line
    /// (64) and nothing is changed.
    func testApproveOnlyWhatIsNamed() throws {
        pair("a.png", shot(), shot([(3, 3)]))
        pair("b.png", shot(), shot([(4, 4)]))
        pair("c.png", shot(), shot([(5, 5)]))
        let old = contents("base/a.png")
        let stray = try collage(["--diff", "base", "shots", "--approve", "shots/a.png", "nowhere.png", "-o", "d.png"])
        assertFailure(stray, status: 64, mentions: ["--approve", "nowhere.png"])
        XCTAssertEqual(contents("base/a.png"), old, "nothing changed")
        let result = try collage(["--diff", "base", "--json", "shots", "--approve", "shots/a.png", "b.png", "-o", "d.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(approved(result), ["shots/a.png": "changed", "shots/b.png": "changed"])
        XCTAssertEqual(contents("base/a.png"), contents("shots/a.png"))
        XCTAssertEqual(contents("base/b.png"), contents("shots/b.png"))
        XCTAssertEqual(contents("base/c.png"), old)
        XCTAssertFalse(exists("d.png"))
        let verbose = try collage(["--diff", "base", "-v", "shots", "--approve", "c.png"])
        XCTAssertEqual(verbose.status, 0, verbose.summary)
        XCTAssertTrue(verbose.stderrLines.contains { $0.contains("approved shots/c.png") && $0.contains("base/c.png") },
                      verbose.stderrText)
        assertFailure(try collage(["shots", "--approve"]), status: 64, mentions: ["--approve", "--diff"])
    }

    /// A file that cannot be put in place (a read-only baseline folder)
    /// fails the run (73) with the others approved, each file whole, old
    /// or new; once the folder is writable, a rerun approves the rest.
    func testApproveStoppedHalfWayIsFinishedByARerun() throws {
        makeFolder("base/ro")
        makeFolder("shots/ro")
        pair("a.png", shot(), shot([(3, 3)]))
        pair("ro/b.png", shot(), shot([(4, 4)]))
        pair("c.png", shot(), shot([(5, 5)]))
        let old = contents("base/ro/b.png")
        let user = try nonRootUser()
        for folder in ["", "base", "base/ro"] { giveTo(user, folder) }
        chmod(path("base/ro"), 0o555)
        let first = try collage(["--diff", "base", "--json", "shots", "--approve"], as: user)
        XCTAssertEqual(first.status, 73, first.summary)
        XCTAssertEqual(approved(first), ["shots/a.png": "changed", "shots/c.png": "changed"])
        XCTAssertEqual(contents("base/a.png"), contents("shots/a.png"))
        XCTAssertEqual(contents("base/c.png"), contents("shots/c.png"))
        XCTAssertEqual(contents("base/ro/b.png"), old, "old, whole")
        XCTAssertEqual(listingText().filter { $0.contains("collage-") }, [])
        chmod(path("base/ro"), 0o755)
        let rerun = try collage(["--diff", "base", "--json", "shots", "--approve"], as: user)
        XCTAssertEqual(rerun.status, 0, rerun.summary)
        XCTAssertEqual(approved(rerun), ["shots/ro/b.png": "changed"])
        XCTAssertEqual(contents("base/ro/b.png"), contents("shots/ro/b.png"))
    }

    /// --approve --alternative keeps the old baseline as NAME~1.png (then
    /// ~2); a current image that matches an alternative (same bytes, or
    /// the same pixels in another file) is unchanged, and the alternative
    /// is no pair of its own.
    func testAlternativeKeepsTheOldBaselineAndMatchesIt() throws {
        let first = shot(), second = shot([(3, 3)])
        pair("a.png", first, second)
        let approving = try collage(["--diff", "base", "--json", "shots", "--approve", "--alternative"])
        XCTAssertEqual(approving.status, 0, approving.summary)
        assertValidEventStream(approving, "--approve --alternative")
        XCTAssertEqual(events(jsonEvents(approving), "approved").map { $0["alternative"] as? String }, ["base/a~1.png"])
        XCTAssertEqual(contents("base/a~1.png"), first)
        XCTAssertEqual(contents("base/a.png"), second)
        write(first, to: "shots/a.png")
        let back = try collage(["--diff", "base", "--json", "shots", "-o", "d.png"])
        XCTAssertEqual(back.status, 0, back.summary)
        XCTAssertEqual(statuses(back), ["shots/a.png": "unchanged"])
        let pixels = PixelBuffer(width: 64, height: 48) { _, _ in RGB(red: 230, green: 235, blue: 240) }
        write(try Encoder.encode(pixels, suffix: ".tif", orientation: nil).bytes, to: "shots/a.png")
        XCTAssertNotEqual(contents("shots/a.png"), first)
        XCTAssertEqual(statuses(try collage(["--diff", "base", "--json", "shots", "-o", "d.png"])), ["shots/a.png": "unchanged"])
        let third = shot([(7, 7)])
        write(third, to: "shots/a.png")
        let changed = try collage(["--diff", "base", "--json", "shots", "-o", "d.png"])
        XCTAssertEqual(changed.status, 1, changed.summary)
        XCTAssertEqual(statuses(changed), ["shots/a.png": "changed"])
        XCTAssertEqual(try collage(["--diff", "base", "shots", "--approve", "--alternative"]).status, 0)
        XCTAssertEqual(contents("base/a~2.png"), second)
        XCTAssertEqual(contents("base/a.png"), third)
        assertFailure(try collage(["--diff", "base", "--alternative", "shots"]), status: 64, mentions: ["--approve"])
    }

    /// --rules FILE: the first matching line's options replace the command
    /// line's for its paths (`allow` takes statuses out of --fail-on);
    /// comments and blank lines; a bad line is a usage error naming it.
    func testRulesPerPath() throws {
        for folder in ["base/login", "shots/login", "base/dash", "shots/dash"] { makeFolder(folder) }
        pair("login/a.png", shot(), shot([(3, 3)]))
        pair("dash/b.png", shot(), shot([(3, 3)]))
        write(shot(), to: "shots/c.png")
        write(b("# per page\n\nlogin/* tolerance=2  # one stray pixel is fine\ndash/** ignore=0,0,10,10\n*.png allow=added\n"),
              to: "rules")
        let ruled = try collage(["--diff", "base", "--rules", "rules", "--json", "shots", "-o", "d.png"])
        XCTAssertEqual(ruled.status, 0, ruled.summary)
        XCTAssertEqual(statuses(ruled), ["shots/login/a.png": "unchanged", "shots/dash/b.png": "unchanged",
                                         "shots/c.png": "added"])
        XCTAssertFalse(exists("d.png"))
        let plain = try collage(["--diff", "base", "--json", "shots", "-o", "d.png"])
        XCTAssertEqual(plain.status, 1, plain.summary)
        XCTAssertEqual(statuses(plain), ["shots/login/a.png": "changed", "shots/dash/b.png": "changed", "shots/c.png": "added"])
        write(b("login/a.png tolerance=0\nlogin/* tolerance=2\n"), to: "first")
        let first = try collage(["--diff", "base", "--rules", "first", "--json", "shots", "-o", "d.png"])
        XCTAssertEqual(statuses(first)["shots/login/a.png"], "changed", "the first matching line wins")
        write(b("# fine\nlogin/* tolerance=2\ndash/** tolerance=lots\n"), to: "bad")
        assertFailure(try collage(["--diff", "base", "--rules", "bad", "shots", "-o", "d.png"]), status: 64,
                      mentions: ["--rules", "line 3", "tolerance"])
        write(b("login/* colour=red\n"), to: "unknown")
        assertFailure(try collage(["--diff", "base", "--rules", "unknown", "shots", "-o", "d.png"]), status: 64,
                      mentions: ["line 1", "colour=red"])
        assertFailure(try collage(["--rules", "rules", "shots"]), status: 64, mentions: ["--rules", "--diff"])
    }
}
