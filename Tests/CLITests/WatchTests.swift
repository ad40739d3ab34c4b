import Foundation
import Glibc
import Vips
import XCTest

/// `--watch`: after the first run, rescan every --interval seconds
/// and redo the collage when its inputs changed, and only then; SIGINT and
/// SIGTERM end it with 130 / 143 and one line, leaving no temporary or
/// lock file.
///
/// The watcher's passes are counted as the kernel sees them, not by the
/// clock: each pass takes the output's lock (`.out.png.collage-lock`, made
/// beside it) and gives it back (the file removed), and what a pass prints
/// is out before its lock goes. So "nothing rewritten while nothing
/// changed" is shown over passes that were seen to end.
final class WatchTests: CLITestCase {
    private let output = "out/out.png"
    private let lock = ".out.png.collage-lock"

    /// `collage --watch --interval 0.5 w -o out/out.png` (plus `extra`)
    /// over w/a.png, and inotify on `out`.
    private func watch(_ extra: [String] = []) throws -> (RunningProcess, FolderEvents) {
        makeFolder("w")
        makeFolder("out")
        writeImage(palette[0], to: "w/a.png")
        let folder = try FolderEvents(path("out"))
        let process = try start(["--watch", "--interval", "0.5"] + extra + ["w", "-o", output])
        return (process, folder)
    }

    /// Starts watching and waits for the first written path.
    private func startWatching(file: StaticString = #filePath, line: UInt = #line) throws -> (RunningProcess, FolderEvents) {
        let (process, folder) = try watch()
        let started = process.pump(until: monotonicNow() + 120) { process.hasStdoutLine }
        XCTAssertTrue(started, "the first collage is written\n\(String(decoding: process.stderr, as: UTF8.self))",
                      file: file, line: line)
        XCTAssertEqual(String(decoding: process.stdout, as: UTF8.self), output + "\n", file: file, line: line)
        return (process, folder)
    }

    /// Passes that have ended so far (lock files removed).
    private func passes(_ folder: FolderEvents) -> Int { folder.count(.deleted, lock) }

    /// Waits until `more` passes beyond those seen so far have ended.
    private func awaitPasses(_ more: Int, _ process: RunningProcess, _ folder: FolderEvents,
                             file: StaticString = #filePath, line: UInt = #line) {
        folder.drain()
        let target = passes(folder) + more
        XCTAssertTrue(process.pump(until: monotonicNow() + 120, folder: folder) { passes(folder) >= target },
                      "\(more) more passes end (hang guard)\n\(String(decoding: process.stderr, as: UTF8.self))",
                      file: file, line: line)
    }

    private func lineCount(_ bytes: [UInt8]) -> Int { bytes.filter { $0 == UInt8(ascii: "\n") }.count }

    /// Reads output until the watcher has printed `lines` lines on stdout.
    private func awaitStdoutLines(_ process: RunningProcess, _ lines: Int) -> Bool {
        process.pump(until: monotonicNow() + 120) { self.lineCount(process.stdout) >= lines }
    }

    /// Sends `signal` and checks the ending: status, exactly one more line
    /// on stderr, no temporary or lock file.
    private func stop(_ process: RunningProcess, with signal: Int32, status: Int32,
                      file: StaticString = #filePath, line: UInt = #line) {
        process.readAvailable()
        let linesBefore = lineCount(process.stderr)
        process.send(signal)
        let result = process.wait(timeout: 120)
        XCTAssertFalse(result.timedOut, result.summary, file: file, line: line)
        XCTAssertEqual(result.status, status, result.summary, file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, linesBefore + 1, "one line on stderr for the ending\n\(result.summary)",
                       file: file, line: line)
        XCTAssertEqual(result.stderr.last, UInt8(ascii: "\n"), file: file, line: line)
        XCTAssertEqual(litter("out"), [], "no temporary or lock file beside the output", file: file, line: line)
        XCTAssertEqual(litter("w"), [], file: file, line: line)
        XCTAssertTrue(exists(output), "the output stays", file: file, line: line)
    }

    /// After idle rescans, a photo copied into the folder is in the
    /// collage: a new path line, other bytes, its colour at its tile's
    /// centre. A photo removed is gone from it again.
    func testAChangeIsPickedUp() throws {
        let (process, folder) = try startWatching()
        let first = try XCTUnwrap(contents(output))
        if let picture = decoded(output) { assertTiles(picture, [palette[0]], tolerance: 2) }
        // Idle rescans first, as when a photo arrives some time later.
        awaitPasses(3, process, folder)
        XCTAssertEqual(lineCount(process.stdout), 1, "nothing rewritten while nothing changed")

        writeAtomically(image(palette[1]), to: "w/b.png")
        XCTAssertTrue(awaitStdoutLines(process, 2), "rewritten after the new photo\n\(String(decoding: process.stderr, as: UTF8.self))")
        XCTAssertEqual(String(decoding: process.stdout, as: UTF8.self), output + "\n" + output + "\n")
        XCTAssertTrue(contents(output) != first, "the output's bytes changed")
        if let picture = decoded(output) {
            assertTiles(picture, [palette[0], palette[1]], tolerance: 2)
            let tile = grid(2)[1]
            XCTAssertEqual(picture.pixel(x: tile.x + tile.w / 2, y: tile.y + tile.h / 2), palette[1],
                           "the new photo at its tile's centre")
        }

        // And again, after more idle rescans: the watcher keeps watching.
        awaitPasses(3, process, folder)
        XCTAssertEqual(lineCount(process.stdout), 2, "nothing rewritten while nothing changed")
        XCTAssertEqual(unlink(path("w/a.png")), 0)
        XCTAssertTrue(awaitStdoutLines(process, 3), "rewritten after a removal")
        if let picture = decoded(output) { assertTiles(picture, [palette[1]], tolerance: 2) }
        stop(process, with: SIGINT, status: 130)
    }

    /// Nothing changes for six passes after the first: the output is not
    /// rewritten and nothing more is printed.
    func testNoChangeNoRewrite() throws {
        let (process, folder) = try startWatching()
        let time = try XCTUnwrap(fileTime(output))
        folder.drain()  // the first pass renamed its file onto the output before it printed the path
        XCTAssertEqual(folder.count(.movedIn, "out.png"), 1, "the first collage")
        awaitPasses(6, process, folder)
        XCTAssertEqual(fileTime(output), time, "mtime (ns) and inode stable over six passes")
        XCTAssertEqual(lineCount(process.stdout), 1, "no new path")
        XCTAssertEqual(folder.count(.movedIn, "out.png"), 1, "nothing more was renamed onto the output")
        stop(process, with: SIGTERM, status: 143)
        XCTAssertEqual(fileTime(output), time)
    }

    func testSIGINTEndsItWith130() throws {
        let (process, folder) = try startWatching()
        awaitPasses(2, process, folder)  // a couple of rescans
        stop(process, with: SIGINT, status: 130)
    }

    func testSIGTERMEndsItWith143() throws {
        let (process, folder) = try startWatching()
        awaitPasses(2, process, folder)
        stop(process, with: SIGTERM, status: 143)
    }

    /// --watch --json: idle rescans, a change, idle rescans, SIGINT; every
    /// line validates and the summary (status 130) counts what the stream
    /// shows: two collages written, not the idle rescans it did not report.
    func testJSONStream() throws {
        let (process, folder) = try watch(["--json"])
        let written = { String(decoding: process.stdout, as: UTF8.self).components(separatedBy: "\"event\":\"written\"").count - 1 }
        XCTAssertTrue(process.pump(until: monotonicNow() + 120) { written() >= 1 }, "the first collage")
        awaitPasses(2, process, folder)  // idle rescans
        writeAtomically(image(palette[1]), to: "w/b.png")
        XCTAssertTrue(process.pump(until: monotonicNow() + 120) { written() >= 2 }, "the change is picked up")
        awaitPasses(3, process, folder)  // the pass that wrote, then idle again
        process.send(SIGINT)
        let result = process.wait(timeout: 120)
        XCTAssertEqual(result.status, 130, result.summary)
        let all = assertValidEventStream(result, "--watch --json")
        XCTAssertEqual(all.last?["written"] as? Int, 2, result.summary)
        XCTAssertEqual(all.last?["used"] as? Int, 3, "one image, then two\n\(result.summary)")
    }

    /// --watch takes files and folders: with - it is a usage error, and
    /// --interval must be sensible.
    func testUsageErrors() throws {
        makeFolder("w")
        writeImage(palette[0], to: "w/a.png")
        assertFailure(try collage(["--watch", "-", "-o", "out.png"], stdin: b("w/a.png\n")), status: 64)
        assertFailure(try collage(["--watch", "--interval", "0", "w", "-o", "out.png"]), status: 64,
                      mentions: ["--interval"])
        assertFailure(try collage(["--watch", "--dry-run", "w", "-o", "out.png"]), status: 64)
        XCTAssertFalse(exists("out.png"))
    }
}
