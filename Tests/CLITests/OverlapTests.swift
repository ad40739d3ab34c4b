import Foundation
import Glibc
import Vips
import XCTest

/// overlapping runs (docs/what-happens-when.md, "Two runs, one output"): two runs writing the same
/// output take turns on `.NAME.collage-lock`; the one that waits says so,
/// both end well, the output is whole whenever it is looked at, and no lock
/// or temporary file is left. A waiting run still stops on SIGTERM/SIGINT.
final class OverlapTests: CLITestCase {
    /// Six slow images (3000x2000 noise) for 2400x1600 PNG collages: a run
    /// takes a second or more here.
    private func makeSlowInputs() throws {
        makeFolder("in")
        write(try ExitStatusTests.bigNoisyJPEG(), to: "in/0.jpg")
        for index in 1..<6 { hardLink("in/0.jpg", b("in/\(index).jpg")) }
    }

    private let arguments = ["in", "--size", "2400x1600", "-o", "out.png"]

    /// Two runs started together (a previous, complete out.png in place).
    /// What happens to out.png is watched (inotify on its folder): it is
    /// never written in place, removed or moved away, only replaced by a
    /// rename, once by each run, and each version put in place is read as
    /// soon as it is there and decodes to a whole 2400x1600 image. So
    /// whoever reads out.png at any moment reads a whole image. Both exit
    /// 0, print out.png and, stderr not being a terminal, nothing else:
    /// the one that waited does not say so, its wait ended well.
    /// Afterwards only the inputs and out.png are left: no lock, no
    /// temporary file.
    func testTwoRunsAtOnceTakeTurns() throws {
        try makeSlowInputs()
        let old = image(palette[3], width: 2400, height: 1600, suffix: ".png")
        write(old, to: "out.png")
        let folder = try FolderEvents(dir)
        let first = try start(arguments)
        let second = try start(arguments)
        var versions: [[UInt8]] = [old]
        var broken: [String] = []
        var renamed = 0
        while renamed < 2, folder.await({ folder.count(.movedIn, "out.png") > renamed }) {
            renamed = folder.count(.movedIn, "out.png")
            guard let bytes = contents("out.png") else { broken.append("out.png was missing"); continue }
            guard bytes != versions.last! else { continue }
            versions.append(bytes)
            if let picture = try? ImageFile.decode(bytes: bytes) {
                if picture.width != 2400 || picture.height != 1600 { broken.append("\(picture.width)x\(picture.height)") }
            } else {
                broken.append("a version of \(bytes.count) bytes does not decode")
            }
        }
        let results = [first.wait(timeout: 120), second.wait(timeout: 120)]
        folder.drain()
        XCTAssertEqual(folder.count(.movedIn, "out.png"), 2, "each run renamed its collage onto out.png once")
        XCTAssertEqual(folder.all.filter { $0.name == "out.png" && $0.kind != .movedIn }, [],
                       "out.png was never written in place, removed or moved away")
        XCTAssertEqual(broken, [], "every version of out.png was whole")
        XCTAssertGreaterThanOrEqual(versions.count, 2, "a new collage replaced the old one")
        for result in results {
            XCTAssertEqual(result.status, 0, result.summary)
            XCTAssertEqual(result.stdoutText, "out.png\n", result.summary)
        }
        XCTAssertEqual(results.filter { $0.stderr.isEmpty }.count, 2,
                       "neither said anything\n\(results.map(\.summary).joined(separator: "\n"))")
        XCTAssertEqual(listingText(), ["in", "out.png"], "no lock or temporary file left")
        if let picture = decoded("out.png") { XCTAssertEqual([picture.width, picture.height], [2400, 1600]) }
    }

    /// A run waiting for the lock gets SIGTERM (then another SIGINT) while
    /// the run holding the lock is stopped (SIGSTOP, from the moment it has
    /// taken it), so the lock cannot be given back meanwhile: the waiting run exits 143 (130), writes nothing
    /// (no `written` event, the summary's status), and the holder, let go,
    /// ends well.
    func testWaitingRunStopsOnSignalWithoutWriting() throws {
        try makeSlowInputs()
        for (signal, status) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let holder = try start(arguments + ["--json"])
            XCTAssertTrue(holder.awaitEvent { field($0, "event") == "accepted" }, "the first run holds the lock")
            // Stopped before the second run starts: however slow the machine, it finds the lock held.
            XCTAssertEqual(holder.freeze(), .stopped, "the holder stands still, holding the lock")
            let waiter = try start(arguments + ["--json"])
            XCTAssertTrue(waiter.awaitEvent(timeout: 120) { field($0, "event") == "notice" }, "the second run waits")
            waiter.send(signal)
            let stopped = waiter.wait(timeout: 120)
            holder.thaw()
            XCTAssertFalse(stopped.timedOut, "the waiting run ends on the signal, the lock still held\n\(stopped.summary)")
            XCTAssertEqual(stopped.status, status, stopped.summary)
            let all = jsonEvents(stopped)
            XCTAssertTrue((events(all, "notice").first?["message"] as? String ?? "").contains("waiting for another collage run"))
            XCTAssertEqual(events(all, "written").count, 0, "the waiting run wrote nothing")
            XCTAssertEqual(all.last?["status"] as? Int, Int(status))
            // Off a terminal the notice is only the JSON event; the exit's line says it waited.
            XCTAssertEqual(stopped.stderrLines.count, 1, "the one line of the exit\n\(stopped.summary)")
            XCTAssertTrue(stopped.stderrText.contains("waiting"), stopped.summary)
            let held = holder.wait(timeout: 120)
            XCTAssertEqual(held.status, 0, held.summary)
            XCTAssertEqual(listingText(), ["in", "out.png"], "no lock or temporary file left")
        }
    }

    /// This test holds the lock while three runs wait for it: plain, --json
    /// and -v. Once it lets go, all three end well; stderr not being a
    /// terminal, only the `notice` event of --json and the line of -v tell
    /// of the wait: the plain run, as under cron, says nothing.
    func testWaitThatEndsWellIsSilentOffATerminal() throws {
        makeFolder("in")
        for index in 0..<3 { writeImage(palette[index], to: "in/\(index).png") }
        let held = open(path(".out.png.collage-lock"), O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        XCTAssertEqual(flock(held, LOCK_EX | LOCK_NB), 0, "this test holds the lock")
        let plain = try start(["in", "-o", "out.png"])
        // Once the plain run has the lock file open, its next step is the try that fails.
        let opened = { () -> Bool in
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(plain.pid)/fd")) ?? []
            return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(
                atPath: "/proc/\(plain.pid)/fd/\($0)"))?.hasSuffix("/.out.png.collage-lock") ?? false }
        }
        XCTAssertTrue(plain.awaitState(timeout: 120, opened), "the plain run reached the lock")
        let json = try start(["in", "-o", "out.png", "--json"])
        let verbose = try start(["in", "-o", "out.png", "-v"])
        XCTAssertTrue(json.awaitEvent(timeout: 120) { field($0, "event") == "notice" }, "--json tells of the wait")
        XCTAssertTrue(verbose.awaitStderr("waiting for another collage run", timeout: 120), "-v tells of the wait")
        close(held)
        let results = [plain, json, verbose].map { $0.wait(timeout: 120) }
        for result in results { XCTAssertEqual(result.status, 0, result.summary) }
        XCTAssertEqual(results[0].stdoutText, "out.png\n", results[0].summary)
        XCTAssertEqual(results[0].stderrText, "", "the plain run says nothing of its wait\n\(results[0].summary)")
        XCTAssertEqual(results[1].stderrText, "", "--json: only the event\n\(results[1].summary)")
        XCTAssertEqual(listingText(), ["in", "out.png"], "no lock or temporary file left")
    }

    /// The kernel drops the lock of a run killed with SIGKILL: the lock file
    /// it leaves does not make the next run wait, and that run removes it.
    func testLockOfAKilledRunDoesNotBlock() throws {
        try makeSlowInputs()
        let killed = try start(arguments + ["--json"])
        XCTAssertTrue(killed.awaitEvent { field($0, "event") == "accepted" })
        XCTAssertTrue(exists(".out.png.collage-lock"), "the lock file is beside the output")
        killed.send(SIGKILL)
        XCTAssertEqual(killed.wait(timeout: 30).signal, SIGKILL)
        XCTAssertTrue(exists(".out.png.collage-lock"), "a killed run leaves its lock file")
        let next = try collage(arguments, timeout: 120)
        assertSuccess(next, stdout: "out.png\n")  // no "waiting" notice on stderr
        XCTAssertEqual(listingText(), ["in", "out.png"])
    }
}
