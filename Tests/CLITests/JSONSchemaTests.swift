import Foundation
import Glibc
import Vips
import XCTest

/// docs/json-events.md: every line of every scenario validates against
/// the events table (required fields and their types, `*_base64` only for
/// paths that are not UTF-8, nothing undocumented), `summary` is the last
/// line, its counts agree with the other events and its `status` is the
/// exit status.
final class JSONSchemaTests: CLITestCase {
    private func run(_ arguments: [String], _ scenario: String, status: Int32,
                     file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let result = try collage(arguments + ["--json"])
        XCTAssertEqual(result.status, status, "\(scenario)\n\(result.summary)", file: file, line: line)
        return assertValidEventStream(result, scenario, file: file, line: line)
    }

    func testPortraitsAndTheCap() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        writeImage(palette[1], to: "in/b-portrait.png", width: 48, height: 64)
        for index in 2..<9 { writeImage(palette[index], to: "in/c\(index).png") }
        let all = try run(["in", "-o", "out.png"], "portraits and the cap", status: 0)
        XCTAssertEqual(events(all, "rejected").map { $0["reason"] as? String }, ["portrait"])
        XCTAssertEqual(events(all, "written").count, 1)
        XCTAssertEqual(events(all, "placed").count, 6)
        let notices = events(all, "notice").compactMap { $0["message"] as? String }
        XCTAssertEqual(notices.count, 1, "the cap notice: \(notices)")
        XCTAssertTrue(notices.first?.contains("--sheets") ?? false, "\(notices)")
    }

    func testTooLargeUnsupportedAndTruncated() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        writeImage(palette[1], to: "in/b-large.png", width: 300, height: 200)  // 60000 pixels
        write(b("this is text, not a photo\n"), to: "in/c-text.jpg")
        write(b(""), to: "in/d-empty.jpg")
        let noise = try noisyJPEG(width: 200, height: 150)  // 30000 pixels
        write(Array(noise.prefix(noise.count / 3)), to: "in/e-truncated.jpg")
        writeImage(palette[2], to: "in/f.png")
        settle()  // cut short two hours ago: failed, not a file still being copied
        let all = try run(["in", "--max-pixels", "50000", "-o", "out.png"], "too-large, unsupported, truncated",
                          status: 65)
        var reasons: [String: String] = [:]
        for event in events(all, "rejected") { reasons[event["path"] as? String ?? ""] = event["reason"] as? String }
        XCTAssertEqual(reasons, ["in/b-large.png": "too-large", "in/c-text.jpg": "unsupported",
                                 "in/d-empty.jpg": "unsupported"])
        XCTAssertEqual(events(all, "failed").map { $0["path"] as? String }, ["in/e-truncated.jpg"])
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png", "in/f.png"])
        XCTAssertNotNil(all.last?["message"] as? String, "a non-zero summary says why")
    }

    func testSheets() throws {
        makeFolder("in")
        for index in 0..<7 { writeImage(palette[index], to: "in/\(index).png") }
        let all = try run(["in", "--sheets", "--max", "3", "-o", "sheet-{n}.png"], "--sheets", status: 0)
        let written = events(all, "written")
        XCTAssertEqual(written.map { $0["sheet"] as? Int }, [1, 2, 3])
        XCTAssertEqual(written.map { $0["output"] as? String }, ["sheet-0001.png", "sheet-0002.png", "sheet-0003.png"])
        XCTAssertEqual(written.map { ($0["images"] as? [String])?.count }, [3, 3, 1])
        for event in written {
            let output = event["output"] as? String ?? ""
            XCTAssertEqual(event["bytes"] as? Int, contents(output)?.count, "bytes is the size of \(output)")
        }
    }

    func testDryRun() throws {
        makeFolder("in")
        for index in 0..<5 { writeImage(palette[index], to: "in/\(index).png") }
        writeImage(palette[5], to: "in/9-portrait.png", width: 48, height: 64)
        let all = try run(["in", "--dry-run", "--sheets", "--max", "2", "-o", "s.png"], "--dry-run", status: 0)
        XCTAssertEqual(events(all, "planned").map { $0["output"] as? String }, ["s-0001.png", "s-0002.png", "s-0003.png"])
        XCTAssertEqual(events(all, "written").count, 0)
        XCTAssertEqual(events(all, "placed").count, 0, "nothing is placed without decoding")
        XCTAssertEqual(all.last?["planned"] as? Int, 3)
    }

    func testSkipUnchangedRerun() throws {
        makeFolder("in")
        for index in 0..<3 { writeImage(palette[index], to: "in/\(index).png") }
        let first = try run(["in", "--skip-unchanged", "-o", "out.png"], "--skip-unchanged, first run", status: 0)
        XCTAssertEqual(events(first, "written").count, 1)
        let second = try run(["in", "--skip-unchanged", "-o", "out.png"], "--skip-unchanged, unchanged run", status: 0)
        XCTAssertEqual(events(second, "unchanged").map { $0["output"] as? String }, ["out.png"])
        XCTAssertEqual(events(second, "unchanged").first?["images"] as? [String], ["in/0.png", "in/1.png", "in/2.png"])
        XCTAssertEqual(second.last?["unchanged"] as? Int, 1)
        XCTAssertEqual(second.last?["used"] as? Int, 3)
    }

    func testPerFolder() throws {
        makeFolder("in")
        makeFolder("in/a")
        makeFolder("in/b")
        makeFolder("in/c")
        writeImage(palette[0], to: "in/a/1.png")
        writeImage(palette[1], to: "in/a/2.png")
        writeImage(palette[2], to: "in/b/portrait.png", width: 48, height: 64)
        writeImage(palette[3], to: "in/c/1.png")
        makeFolder("out")
        let all = try run(["in", "--per-folder", "-o", "out/{path}.png"], "--per-folder", status: 0)
        XCTAssertEqual(events(all, "written").map { $0["output"] as? String }, ["out/a.png", "out/c.png"])
        XCTAssertEqual(events(all, "notice").filter { ($0["message"] as? String)?.contains("in/b") == true }.count, 1,
                       "the skipped folder is reported")

        let plan = try run(["in", "--per-folder", "--dry-run", "-o", "out/{dir}.png"], "--per-folder --dry-run", status: 0)
        XCTAssertEqual(events(plan, "planned").map { $0["output"] as? String }, ["out/a.png", "out/c.png"])
        let arguments = ["in", "--per-folder", "--skip-unchanged", "-o", "out/{dir}.png"]
        _ = try run(arguments, "--per-folder --skip-unchanged, first run", status: 0)
        let again = try run(arguments, "--per-folder --skip-unchanged, unchanged run", status: 0)
        XCTAssertEqual(events(again, "unchanged").map { $0["output"] as? String }, ["out/a.png", "out/c.png"])
    }

    func testPathsThatAreNotUTF8() throws {
        makeFolder("in")
        let odd = b("in/caf") + [0xE9] + b(".png")  // Latin-1 é: not UTF-8
        writeImage(palette[0], to: odd)
        writeImage(palette[1], to: "in/plain.png")
        let output = b("out-") + [0xFF] + b(".png")
        let result = try collage([b("in"), b("--json"), b("-o"), output])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "paths that are not UTF-8")
        let accepted = events(all, "accepted")
        XCTAssertEqual(accepted.compactMap { pathBytes($0, "path") }, [odd, b("in/plain.png")])
        XCTAssertNotNil(accepted.first?["path_base64"], "the odd name carries path_base64")
        XCTAssertNil(accepted.last?["path_base64"], "a UTF-8 name does not")
        let written = events(all, "written").first ?? [:]
        XCTAssertEqual(pathBytes(written, "output"), output)
        XCTAssertEqual(pathListBytes(written, "images"), [odd, b("in/plain.png")])
        XCTAssertTrue(exists(output))
    }

    func testNothingEligibleAndRequireEven() throws {
        makeFolder("portraits")
        writeImage(palette[0], to: "portraits/p.png", width: 48, height: 64)
        let none = try run(["portraits", "-o", "out.png"], "nothing eligible", status: 66)
        XCTAssertEqual(events(none, "rejected").count, 1)
        XCTAssertTrue((none.last?["message"] as? String)?.contains("--allow-portrait") ?? false)

        makeFolder("three")
        for index in 0..<3 { writeImage(palette[index], to: "three/\(index).png") }
        let even = try run(["three", "--require-even", "-o", "even.png"], "--require-even", status: 0)
        XCTAssertEqual(events(even, "written").first?["images"] as? [String], ["three/0.png", "three/1.png"])
        XCTAssertTrue(events(even, "notice").contains { ($0["message"] as? String)?.contains("three/2.png") == true },
                      "the notice names the dropped image")
    }

    /// The validator itself: it must catch what it is there to catch.
    func testTheValidatorCatchesBadEvents() {
        XCTAssertFalse(EventSchema.problems(["event": "written", "output": "o.jpg", "images": ["a"], "width": 1,
                                             "height": 1, "sheet": 1, "bytes": 10]).isEmpty, "missing milliseconds")
        XCTAssertFalse(EventSchema.problems(["event": "failed", "path": "a", "error": 3]).isEmpty, "error not a string")
        XCTAssertFalse(EventSchema.problems(["event": "failed", "path": "a", "error": "x", "extra": 1]).isEmpty,
                       "undocumented field")
        XCTAssertFalse(EventSchema.problems(["event": "failed", "path": "a", "error": "x",
                                             "path_base64": "YQ=="]).isEmpty, "base64 of a UTF-8 path")
        XCTAssertTrue(EventSchema.problems(["event": "failed", "path": "\u{FFFD}", "error": "x",
                                            "path_base64": "/w=="]).isEmpty, "base64 of a byte that is not UTF-8")
        XCTAssertFalse(EventSchema.problems(["event": "summary", "written": 0, "used": 0, "rejected": 0, "failed": 0,
                                             "unchanged": 0, "planned": 0, "status": 66]).isEmpty,
                       "a non-zero status needs a message")
        XCTAssertFalse(EventSchema.problems(["event": "mystery"]).isEmpty)
        let stream: [[String: Any]] = [["event": "written", "output": "o", "images": ["a"]],
                                       ["event": "summary", "written": 2, "used": 1, "rejected": 0, "failed": 0,
                                        "unchanged": 0, "planned": 0, "status": 0]]
        XCTAssertFalse(EventSchema.streamProblems(stream, status: 0).isEmpty, "written count differs")
    }
}
