import Foundation
import Glibc
import Vips
import XCTest

/// `--watch`: after the first run, rescan every --interval seconds
/// and redo the collage when its inputs changed, and only then; SIGINT and
/// SIGTERM end it at once with 130 / 143 and one line, leaving no
/// temporary or lock file.
final class WatchTests: CLITestCase {
    private let output = "out/out.png"

    /// Starts `collage --watch --interval 0.5 w -o out/out.png` over w/a.png
    /// and waits for its first written path.
    private func startWatching(file: StaticString = #filePath, line: UInt = #line) throws -> RunningProcess {
        makeFolder("w")
        makeFolder("out")
        writeImage(palette[0], to: "w/a.png")
        let process = try RunningProcess(arguments: command([b("--watch"), b("--interval"), b("0.5"), b("w"),
                                                             b("-o"), b(output)]), directory: dir)
        let started = process.pump(until: monotonicNow() + 60) { process.hasStdoutLine }
        XCTAssertTrue(started, "the first collage is written\n\(String(decoding: process.stderr, as: UTF8.self))",
                      file: file, line: line)
        XCTAssertEqual(String(decoding: process.stdout, as: UTF8.self), output + "\n", file: file, line: line)
        return process
    }

    private func lineCount(_ bytes: [UInt8]) -> Int { bytes.filter { $0 == UInt8(ascii: "\n") }.count }

    /// Waits (reading its output) until the watcher has printed `lines`
    /// lines on stdout, or `seconds` pass. Returns the seconds it took, or nil.
    private func waitForStdoutLines(_ process: RunningProcess, _ lines: Int, within seconds: Double) -> Double? {
        let start = monotonicNow()
        let done = process.pump(until: start + seconds) { self.lineCount(process.stdout) >= lines }
        return done ? monotonicNow() - start : nil
    }

    /// Sends `signal` and checks the ending: status, within about a second,
    /// exactly one more line on stderr, no temporary or lock file.
    private func stop(_ process: RunningProcess, with signal: Int32, status: Int32,
                      file: StaticString = #filePath, line: UInt = #line) {
        process.pump(until: monotonicNow() + 0.2)
        let linesBefore = lineCount(process.stderr)
        let sent = monotonicNow()
        process.send(signal)
        let result = process.wait(timeout: (sent - process.started) + 15)
        let took = monotonicNow() - sent
        XCTAssertFalse(result.timedOut, result.summary, file: file, line: line)
        XCTAssertEqual(result.status, status, result.summary, file: file, line: line)
        XCTAssertLessThan(took, 1.5, "ended within about a second of the signal\n\(result.summary)", file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, linesBefore + 1, "one line on stderr for the ending\n\(result.summary)",
                       file: file, line: line)
        XCTAssertEqual(result.stderr.last, UInt8(ascii: "\n"), file: file, line: line)
        XCTAssertEqual(litter("out"), [], "no temporary or lock file beside the output", file: file, line: line)
        XCTAssertEqual(litter("w"), [], file: file, line: line)
        XCTAssertTrue(exists(output), "the output stays", file: file, line: line)
    }

    /// After a few idle rescans, a photo copied into the folder is in the
    /// collage within a few seconds: a new path line, other bytes, its colour at its tile's
    /// centre. A photo removed is gone from it again.
    func testAChangeIsPickedUp() throws {
        let process = try startWatching()
        let first = try XCTUnwrap(contents(output))
        if let picture = decoded(output) { assertTiles(picture, [palette[0]], tolerance: 2) }
        // A few idle rescans first, as when a photo arrives some time later.
        process.pump(until: monotonicNow() + 2)
        XCTAssertEqual(lineCount(process.stdout), 1, "nothing rewritten while nothing changed")

        writeAtomically(image(palette[1]), to: "w/b.png")
        let added = waitForStdoutLines(process, 2, within: 5)
        XCTAssertNotNil(added, "rewritten within 5 s of the new photo\n\(String(decoding: process.stderr, as: UTF8.self))")
        XCTAssertEqual(String(decoding: process.stdout, as: UTF8.self), output + "\n" + output + "\n")
        XCTAssertTrue(contents(output) != first, "the output's bytes changed")
        if let picture = decoded(output) {
            assertTiles(picture, [palette[0], palette[1]], tolerance: 2)
            let tile = grid(2)[1]
            XCTAssertEqual(picture.pixel(x: tile.x + tile.w / 2, y: tile.y + tile.h / 2), palette[1],
                           "the new photo at its tile's centre")
        }

        // And again, after more idle rescans: the watcher keeps watching.
        process.pump(until: monotonicNow() + 2)
        XCTAssertEqual(unlink(path("w/a.png")), 0)
        XCTAssertNotNil(waitForStdoutLines(process, 3, within: 5), "rewritten within 5 s of a removal")
        if let picture = decoded(output) { assertTiles(picture, [palette[1]], tolerance: 2) }
        stop(process, with: SIGINT, status: 130)
    }

    /// Nothing changes for six intervals: the output is not rewritten and
    /// nothing more is printed.
    func testNoChangeNoRewrite() throws {
        let process = try startWatching()
        let time = try XCTUnwrap(fileTime(output))
        process.pump(until: monotonicNow() + 3)
        XCTAssertEqual(fileTime(output), time, "mtime (ns) and inode stable over six intervals")
        XCTAssertEqual(lineCount(process.stdout), 1, "no new path")
        stop(process, with: SIGTERM, status: 143)
        XCTAssertEqual(fileTime(output), time)
    }

    func testSIGINTEndsItWith130() throws {
        let process = try startWatching()
        process.pump(until: monotonicNow() + 1.2)  // a couple of rescans
        stop(process, with: SIGINT, status: 130)
    }

    func testSIGTERMEndsItWith143() throws {
        let process = try startWatching()
        process.pump(until: monotonicNow() + 1.2)
        stop(process, with: SIGTERM, status: 143)
    }

    /// --watch --json: idle rescans, a change, SIGINT; every line validates
    /// and the summary (status 130) counts what the stream shows: two
    /// collages written, not the idle rescans it did not report.
    func testJSONStream() throws {
        makeFolder("w")
        makeFolder("out")
        writeImage(palette[0], to: "w/a.png")
        let process = try RunningProcess(arguments: command([b("--watch"), b("--json"), b("--interval"), b("0.5"),
                                                             b("w"), b("-o"), b(output)]), directory: dir)
        let written = { String(decoding: process.stdout, as: UTF8.self).components(separatedBy: "\"event\":\"written\"").count - 1 }
        XCTAssertTrue(process.pump(until: monotonicNow() + 60) { written() >= 1 }, "the first collage")
        process.pump(until: monotonicNow() + 2)  // idle rescans
        writeAtomically(image(palette[1]), to: "w/b.png")
        XCTAssertTrue(process.pump(until: monotonicNow() + 5) { written() >= 2 }, "the change is picked up")
        process.pump(until: monotonicNow() + 1.5)  // idle again
        process.send(SIGINT)
        let result = process.wait(timeout: monotonicNow() - process.started + 15)
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
