import Foundation
import Glibc
import Vips
import XCTest

/// Files and folders that change under a run (docs/what-happens-when.md): removed, made unreadable or vanishing mid-walk, each is
/// reported once and the run goes on. The test changes them at moments the
/// run has reported (an `accepted` event) or is held at (blocked writing
/// to a full pipe), never after a sleep.
final class ChangingInputTests: CLITestCase {
    /// Paths fed one by one through a pipe: a.png, then b.png removed just
    /// before its line is written, then c.png. b is `failed` ("vanished"),
    /// one stderr line names it, a and c are used, the run ends 65.
    func testFileThatVanishesBeforeItIsReadFailsAndTheRunGoesOn() throws {
        makeFolder("in")
        for (index, name) in ["a", "b", "c"].enumerated() { writeImage(palette[index], to: "in/\(name).png") }
        let feed = try StandardInputFeed(path: path("list"))
        let process = try start(["-", "--json", "-o", "out.png"], feed: feed)
        feed.send("in/a.png")
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "accepted" && field($0, "path") == "in/a.png" })
        XCTAssertEqual(unlink(path("in/b.png")), 0)
        feed.send("in/b.png")
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "failed" && field($0, "path") == "in/b.png" },
                      "b is reported while the run goes on")
        feed.send("in/c.png")
        feed.close()
        let result = process.wait(timeout: 30)
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        let failure = all.first { field($0, "event") == "failed" }
        XCTAssertTrue((failure.flatMap { field($0, "error") } ?? "").contains("vanished"), "\(failure ?? [:])")
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png", "in/c.png"])
        XCTAssertEqual(result.stderrLines.filter { $0.contains("in/b.png") }.count, 1, result.summary)
        if let picture = decoded("out.png") { assertTiles(picture, [palette[0], palette[2]], tolerance: 0) }
    }

    /// A file removed once its header has been read is still used: the run
    /// decodes the descriptor it checked (docs/how-it-works.md, Select/: the bytes
    /// checked are the bytes used), whenever the decode happens.
    func testFileRemovedAfterItsHeaderWasReadIsStillUsed() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        writeImage(palette[1], to: "in/b.png")
        let feed = try StandardInputFeed(path: path("list"))
        let process = try start(["-", "--json", "-o", "out.png"], feed: feed)
        feed.send("in/a.png")
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "accepted" && field($0, "path") == "in/a.png" })
        XCTAssertEqual(unlink(path("in/a.png")), 0)
        feed.send("in/b.png")
        feed.close()
        let result = process.wait(timeout: 30)
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(events(jsonEvents(result), "written").first?["images"] as? [String], ["in/a.png", "in/b.png"])
        if let picture = decoded("out.png") { assertTiles(picture, [palette[0], palette[1]], tolerance: 0) }
    }

    /// As collage-test: b.png is made unreadable (chmod 000) after a.png's
    /// header was read and before b's line is written. b is `failed`
    /// ("Permission denied"), the run goes on with c, 65.
    func testFileThatBecomesUnreadableFailsAndTheRunGoesOn() throws {
        let user = try nonRootUser()
        makeFolder("in")
        for (index, name) in ["a", "b", "c"].enumerated() { writeImage(palette[index], to: "in/\(name).png") }
        makeFolder("out")
        giveTo(user, "out")
        let feed = try StandardInputFeed(path: path("list"))
        let process = try start(["-", "--json", "-o", "out/out.png"], as: user, feed: feed)
        feed.send("in/a.png")
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "accepted" && field($0, "path") == "in/a.png" },
                      String(decoding: process.stderr, as: UTF8.self))
        XCTAssertEqual(chmod(path("in/b.png"), 0), 0)
        feed.send("in/b.png")
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "failed" && field($0, "path") == "in/b.png" })
        feed.send("in/c.png")
        feed.close()
        let result = process.wait(timeout: 30)
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        XCTAssertTrue(all.contains { field($0, "path") == "in/b.png" && (field($0, "error") ?? "").contains("Permission denied") },
                      result.summary)
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png", "in/c.png"])
        XCTAssertEqual(result.stderrLines.filter { $0.contains("in/b.png") }.count, 1, result.summary)
    }

    /// As collage-test, in one folder walk: an unreadable file (000) and an
    /// unreadable folder (root's, 0700) are each `failed` once, with a stderr
    /// line; the readable images on either side are used; 65.
    func testUnreadableFileAndFolderInAWalkFailAndTheRunGoesOn() throws {
        let user = try nonRootUser()
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        writeImage(palette[1], to: "in/b.png")
        chmod(path("in/b.png"), 0)
        makeFolder("in/c-private", mode: 0o700)
        writeImage(palette[2], to: "in/c-private/hidden.png")
        writeImage(palette[3], to: "in/d.png")
        makeFolder("out")
        giveTo(user, "out")
        let result = try collage(["in", "--json", "-o", "out/out.png"], as: user, timeout: 30)
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(verdicts(all, "in/b.png"), ["failed"])
        XCTAssertEqual(verdicts(all, "in/c-private"), ["failed"])
        XCTAssertTrue(all.contains { field($0, "path") == "in/b.png" && (field($0, "error") ?? "").contains("Permission denied") })
        XCTAssertTrue(all.contains { field($0, "path") == "in/c-private" && (field($0, "error") ?? "").contains("cannot read folder") })
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png", "in/d.png"])
        XCTAssertEqual(result.stderrLines.filter { $0.contains("in/b.png") }.count, 1, result.summary)
        XCTAssertEqual(result.stderrLines.filter { $0.contains("in/c-private") }.count, 1, result.summary)
    }

    /// Folders named one by one through a pipe: top/a is walked, then top/b
    /// is removed before its line is written, then top/c. top/b is `failed`,
    /// the run goes on with top/c, 65.
    func testFolderNamedOnStandardInputThatVanishesFails() throws {
        makeFolder("top")
        for (index, name) in ["a", "b", "c"].enumerated() {
            makeFolder("top/\(name)")
            writeImage(palette[index], to: "top/\(name)/\(index).png")
        }
        let feed = try StandardInputFeed(path: path("list"))
        let process = try start(["-", "--json", "-o", "out.png"], feed: feed)
        feed.send("top/a")
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "accepted" && field($0, "path") == "top/a/0.png" })
        _ = try runProcess([b("rm"), b("-rf"), b(path("top/b"))])
        feed.send("top/b")
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "failed" && field($0, "path") == "top/b" })
        feed.send("top/c")
        feed.close()
        let result = process.wait(timeout: 30)
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(verdicts(all, "top/b"), ["failed"])
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["top/a/0.png", "top/c/2.png"])
        XCTAssertEqual(result.stderrLines.filter { $0.contains("top/b") }.count, 1, result.summary)
    }

    /// One folder walk, held still between two of its entries: top/a holds
    /// an image and 4000 empty files, each `rejected` with a line on stdout
    /// and stderr, far more than the pipes hold (64 KiB each). Once the
    /// first event is read (so top was listed), the test stops reading
    /// until a thread of the run is blocked writing to a full pipe
    /// (/proc/PID/task/*/syscall), inside top/a, before it visits top/b (a
    /// folder) and top/c.png (a file), which are removed then. When the test
    /// reads again, both are `failed` (docs/what-happens-when.md: a folder that disappears
    /// mid-walk, "cannot read folder"; a file that vanishes), and the run
    /// goes on to top/d.png, 65.
    func testFolderAndFileThatVanishMidWalkFail() throws {
        makeFolder("top")
        makeFolder("top/a")
        writeImage(palette[0], to: "top/a/0.png")
        for index in 0..<4000 { write([], to: String(format: "top/a/zz-%04d.jpg", index)) }
        makeFolder("top/b")
        writeImage(palette[1], to: "top/b/inside.png")
        writeImage(palette[2], to: "top/c.png")
        writeImage(palette[3], to: "top/d.png")
        let process = try start(["top", "--json", "-o", "out.png"])
        XCTAssertTrue(process.pump(until: monotonicNow() + 120) { process.hasStdoutLine }, "the walk has begun")
        XCTAssertTrue(process.awaitState(timeout: 120, reading: false) { process.isBlockedWriting(1) || process.isBlockedWriting(2) },
                      "the run blocks writing to a full pipe")
        XCTAssertFalse(process.hasExited, "the run waits for the test to read its output")
        _ = try runProcess([b("rm"), b("-rf"), b(path("top/b"))])
        XCTAssertEqual(unlink(path("top/c.png")), 0)
        let result = process.wait(timeout: 60)
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(events(all, "rejected").count, 4000)
        XCTAssertEqual(verdicts(all, "top/b"), ["failed"])
        XCTAssertTrue(all.contains { field($0, "path") == "top/b" && (field($0, "error") ?? "").contains("cannot read folder") },
                      "\(all.filter { field($0, "event") == "failed" })")
        XCTAssertEqual(verdicts(all, "top/c.png"), ["failed"])
        XCTAssertTrue(all.contains { field($0, "path") == "top/c.png" && (field($0, "error") ?? "").contains("vanished") })
        XCTAssertFalse(all.contains { field($0, "path") == "top/b/inside.png" })
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["top/a/0.png", "top/d.png"])
        XCTAssertEqual(all.last?["failed"] as? Int, 2)
    }
}
