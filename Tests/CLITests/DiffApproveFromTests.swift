import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// `--approve-from`: the review page's decisions applied, with their
/// SHA-256 pins and path rules.
extension DiffApproveTests {
    /// The SHA-256 of a file, as coreutils' sha256sum says it.
    func sha256(_ relative: String) throws -> String {
        let result = try runProcess([b("sha256sum"), b(path(relative))])
        XCTAssertEqual(result.status, 0, result.summary)
        return String(result.stdoutText.prefix(64))
    }

    /// Decisions as the review page writes them.
    func decisions(baseline: String = "base", input: [String] = ["shots"],
                   _ pairs: [(path: String, sha256: String?, alternative: Bool)]) -> [UInt8] {
        let entries = pairs.map { pair in
            "{\"path\": \"\(pair.path)\", \"sha256\": \(pair.sha256.map { "\"\($0)\"" } ?? "null"), "
                + "\"alternative\": \(pair.alternative)}"
        }
        let inputs = input.map { "\"\($0)\"" }.joined(separator: ", ")
        return b("{\"decisions\": \"collage --diff\", \"version\": 1, \"baseline\": \"\(baseline)\", "
                 + "\"input\": [\(inputs)], \"approve\": [\(entries.joined(separator: ", "))]}\n")
    }

    /// --approve-from FILE approves exactly the pairs it lists, as --approve
    /// does (changed replaced, added added, removed removed, an
    /// alternative kept), each reported; the others are left as they are.
    func testApproveFromAppliesExactlyTheDecisions() throws {
        pair("a.png", shot(), shot([(3, 3)]))
        pair("b.png", shot(), shot([(4, 4)]))
        pair("c.png", shot(), shot([(5, 5)]))
        makeFolder("shots/sub")
        write(shot([(9, 9)]), to: "shots/sub/new.png")
        write(shot(), to: "base/gone.png")
        write(shot(), to: "base/kept.png")
        let (oldA, oldB) = (contents("base/a.png"), contents("base/b.png"))
        write(decisions([("a.png", try sha256("shots/a.png"), true), ("sub/new.png", try sha256("shots/sub/new.png"), false),
                         ("gone.png", nil, false)]), to: "decisions.json")
        let result = try collage(["--diff", "base/", "./shots", "--json", "--approve-from", "decisions.json"])
        XCTAssertEqual(result.status, 0, result.summary)
        assertValidEventStream(result, "--approve-from")
        XCTAssertEqual(approved(result), ["./shots/a.png": "changed", "./shots/sub/new.png": "added",
                                          "./shots/gone.png": "removed"])
        XCTAssertEqual(contents("base/a.png"), contents("shots/a.png"))
        XCTAssertEqual(contents("base/a~1.png"), oldA, "kept as an alternative, as the reviewer ticked")
        XCTAssertEqual(contents("base/sub/new.png"), contents("shots/sub/new.png"))
        XCTAssertFalse(exists("base/gone.png"))
        XCTAssertEqual(contents("base/b.png"), oldB, "not ticked: left as it is")
        XCTAssertNotEqual(contents("base/c.png"), contents("shots/c.png"))
        XCTAssertTrue(exists("base/kept.png"), "a removed pair nobody approved stays")
        XCTAssertEqual(listingText("base").filter { $0.contains("collage-") }, [])
        // Applied again: what was approved is unchanged now, and nothing else moves.
        let again = try collage(["--diff", "base", "shots", "--json", "--approve-from", "decisions.json"])
        XCTAssertEqual(again.status, 0, again.summary)
        XCTAssertEqual(approved(again), [:])
        assertFailure(try collage(["--diff", "base", "shots", "--approve", "a.png", "--approve-from", "decisions.json"]),
                      status: 64, mentions: ["--approve-from"])
        assertFailure(try collage(["shots", "--approve-from", "decisions.json"]), status: 64, mentions: ["--approve-from", "--diff"])
    }

    /// A pair whose current file changed after the review is refused,
    /// named on standard error and left as it is; the others go through;
    /// exit 65. A file gone since the review is refused the same way.
    func testApproveFromRefusesWhatChangedSinceTheReview() throws {
        pair("a.png", shot(), shot([(3, 3)]))
        pair("b.png", shot(), shot([(4, 4)]))
        pair("c.png", shot(), shot([(5, 5)]))
        let oldB = contents("base/b.png")
        write(decisions([("a.png", try sha256("shots/a.png"), false), ("b.png", try sha256("shots/b.png"), false),
                         ("c.png", try sha256("shots/c.png"), false)]), to: "decisions.json")
        write(shot([(6, 6)]), to: "shots/b.png")  // changed after the review
        unlink(path("shots/c.png"))  // gone since
        let oldC = contents("base/c.png")
        let result = try collage(["--diff", "base", "shots", "--json", "--approve-from", "decisions.json"])
        XCTAssertEqual(result.status, 65, result.summary)
        XCTAssertEqual(approved(result), ["shots/a.png": "changed"])
        XCTAssertEqual(contents("base/a.png"), contents("shots/a.png"))
        XCTAssertEqual(contents("base/b.png"), oldB, "stale: left as it is")
        XCTAssertEqual(contents("base/c.png"), oldC, "gone since the review: the removal was not what was seen")
        let failed = events(jsonEvents(result), "failed").compactMap { $0["path"] as? String }
        XCTAssertEqual(Set(failed), ["shots/b.png", "shots/c.png"])
        for name in ["shots/b.png", "shots/c.png"] {
            XCTAssertTrue(result.stderrLines.contains { $0.contains(name) && $0.contains("changed since the review") },
                          result.stderrText)
        }
        let plain = try collage(["--diff", "base", "shots", "--approve-from", "decisions.json"])
        XCTAssertEqual(plain.status, 65, plain.summary)
        XCTAssertTrue(plain.stderrLines.contains { $0.contains("b.png") && $0.contains("changed since the review") },
                      plain.stderrText)
    }

    /// Decisions that name a path outside the trees (`..`, absolute, a
    /// symbolic link out of BASELINE or INPUT), that are not JSON, not of
    /// the page's shape, or made for other trees: refused whole in one
    /// line, exit 64, nothing written anywhere.
    func testApproveFromRefusesHostileDecisionsWhole() throws {
        pair("a.png", shot(), shot([(3, 3)]))
        makeFolder("outside")
        write(shot(), to: "outside/x.png")
        makeFolder("shots/link")
        write(shot([(1, 1)]), to: "shots/link/x.png")
        symbolicLink("../outside", "base/link")  // a folder of BASELINE that leads out of it
        symbolicLink("../../outside/x.png", "shots/link/y.png")
        write(shot([(2, 2)]), to: "outside/y.png")
        let digest = try sha256("shots/a.png")
        let before = try snapshot()
        let hostile: [(String, [UInt8], String)] = [
            ("dotdot", decisions([("a.png", digest, false), ("../outside/x.png", digest, false)]), ".."),
            ("absolute", decisions([("a.png", digest, false), ("/etc/hostname", digest, false)]), "absolute"),
            ("dotdot-inner", decisions([("sub/../../x.png", digest, false)]), ".."),
            ("link-baseline", decisions([("a.png", digest, false), ("link/x.png", try sha256("shots/link/x.png"), false)]),
             "symbolic link"),
            ("link-input", decisions([("link/y.png", digest, false)]), "symbolic link"),
            ("not-json", b("approve a.png please\n"), "not JSON"),
            ("truncated", Array(decisions([("a.png", digest, false)]).dropLast(8)), "not JSON"),
            ("shape", b("{\"decisions\": \"collage --diff\", \"version\": 1, \"baseline\": \"base\", \"input\": [\"shots\"], "
                        + "\"approve\": [\"a.png\"]}"), "not decisions"),
            ("extra-key", b("{\"decisions\": \"collage --diff\", \"version\": 1, \"baseline\": \"base\", \"input\": [\"shots\"], "
                            + "\"approve\": [], \"run\": \"rm -rf /\"}"), "run"),
            ("short-digest", decisions([("a.png", "abc123", false)]), "sha256"),
            ("twice", decisions([("a.png", digest, false), ("a.png", digest, true)]), "twice"),
            ("other-trees", decisions(baseline: "elsewhere", [("a.png", digest, false)]), "elsewhere"),
        ]
        for (name, bytes, word) in hostile {
            write(bytes, to: name + ".json")
            let result = try collage(["--diff", "base", "shots", "--approve-from", name + ".json"])
            assertFailure(result, status: 64, mentions: ["--approve-from", word])
            XCTAssertEqual(try snapshot(), before, "\(name): nothing written")
        }
    }

    /// Every file below the test's folder and its bytes.
    func snapshot() throws -> [String: [UInt8]] {
        let result = try runProcess([b("find"), b("."), b("-type"), b("f")], directory: path(""))
        var files: [String: [UInt8]] = [:]
        for name in result.stdoutLines where !name.hasSuffix(".json") { files[name] = contents(String(name.dropFirst(2))) }
        return files
    }
}
