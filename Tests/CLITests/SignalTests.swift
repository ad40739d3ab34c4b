import Foundation
import Glibc
import Vips
import XCTest

/// SIGINT and SIGTERM (README: "the pipeline is cancelled through
/// its subscriptions, a save in progress removes its temporary file";
/// 130 / 143). ExitStatusTests covers a signal after the first event; here
/// the signal comes at other moments: after a sheet was written, while a
/// sheet is being written to disk, while the run waits for standard input,
/// and without --json. Each time the time from the signal to the exit is
/// measured: about a second at most.
final class SignalTests: CLITestCase {
    /// How long a run may take to stop after the signal. README promises
    /// "at once"; the machine is shared and this is a debug build.
    /// Only a run that ignored the signal (and went on to its end) or hung
    /// misses this; a slow machine does not.
    private let promptly = 20.0

    private func makeSlowInputs(count: Int = 40) throws {
        makeFolder("big")
        write(try ExitStatusTests.bigNoisyJPEG(), to: "big/000.jpg")
        for index in 1..<count { hardLink("big/000.jpg", b(String(format: "big/%03d.jpg", index))) }
        makeFolder("out")
    }

    /// Sends `signal` once `ready` says so, and checks the end: the
    /// status, the time since the signal, one stderr line, the summary last
    /// (with --json), no temporary or lock file, and every sheet in the
    /// folder reported written and complete.
    private func interrupt(_ signal: Int32, status: Int32, json: Bool = true, size: String = "1200x800",
                           when moment: String, ready: (RunningProcess) -> Bool) throws {
        _ = try runProcess([b("rm"), b("-rf"), b(path("out"))])
        makeFolder("out")
        let process = try start(["big", "--sheets", "--max", "4", "--size", size, "-o", "out/sheet.png"]
                                + (json ? ["--json"] : []))
        XCTAssertTrue(ready(process), "\(moment): the moment came")
        let sent = monotonicNow()
        process.send(signal)
        let result = process.wait(timeout: (sent - process.started) + 20)
        let stopped = monotonicNow() - sent
        print("signal \(signal) \(moment): stopped \(Int(stopped * 1000)) ms after the signal")
        XCTAssertFalse(result.timedOut, "\(moment)\n\(result.summary)")
        XCTAssertEqual(result.status, status, "\(moment)\n\(result.summary)")
        XCTAssertLessThan(stopped, promptly, "\(moment): stops about at once")
        XCTAssertEqual(result.stderrLines.count, 1, "\(moment): one line\n\(result.summary)")
        XCTAssertTrue(result.stderrText.contains("interrupted"), result.summary)
        var reported: Set<String>
        if json {
            let all = jsonEvents(result)
            XCTAssertEqual(all.last?["event"] as? String, "summary", moment)
            XCTAssertEqual(all.last?["status"] as? Int, Int(status), moment)
            reported = Set(events(all, "written").compactMap { field($0, "output") })
        } else {
            reported = Set(result.stdoutLines)
        }
        assertNoLeftovers("out")
        for name in listingText("out") {
            XCTAssertTrue(reported.contains("out/" + name), "\(moment): \(name) was not reported as written")
            if let sheet = decoded("out/" + name) {
                XCTAssertEqual("\(sheet.width)x\(sheet.height)", size, "\(moment): \(name) is complete")
            }
        }
    }

    /// After the first sheet was written (the second being decoded).
    func testSignalAfterASheetWasWritten() throws {
        try makeSlowInputs()
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            try interrupt(signal, status: status, when: "after a sheet was written") { process in
                process.awaitEvent { field($0, "event") == "written" }
            }
        }
    }

    /// Without --json: after the first path is printed on stdout. Stdout
    /// then holds only paths of complete sheets.
    func testSignalWithoutJSON() throws {
        try makeSlowInputs()
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            try interrupt(signal, status: status, json: false, when: "without --json") { process in
                process.pump(until: monotonicNow() + 60) { process.hasStdoutLine }
            }
        }
    }

    /// While a sheet is being written to disk: large PNG sheets (4000x3000
    /// of noise), and the signal as soon as the temporary file appears. The
    /// save either completes or removes its temporary file: no partial
    /// output, no temporary file, and the run still ends promptly.
    func testSignalWhileASheetIsBeingWritten() throws {
        try makeSlowInputs(count: 16)
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            var caught = false
            try interrupt(signal, status: status, size: "4000x3000", when: "while writing a sheet") { process in
                let deadline = monotonicNow() + 60
                while monotonicNow() < deadline {
                    process.pump(until: monotonicNow() + 0.001)
                    if hiddenNames("out").contains(where: { $0.contains(".collage-tmp-") }) { caught = true; return true }
                    if process.eventsSoFar.contains(where: { field($0, "event") == "summary" }) { return false }
                }
                return false
            }
            print("signal \(signal): the temporary file was \(caught ? "seen" : "not seen") before the signal")
        }
    }

    /// While the run waits for the next path on standard input (a pipe with
    /// nothing in it yet), before and after a first path: it stops at once,
    /// writes nothing, and says so in one line.
    func testSignalWhileWaitingForStandardInput() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            for givenFirst in [false, true] {
                let moment = givenFirst ? "waiting for a second path" : "waiting for a first path"
                let feed = try StandardInputFeed(path: path("list-\(signal)-\(givenFirst)"))
                let process = try start(["-", "--json", "-o", "out.png"], feed: feed)
                if givenFirst {
                    feed.send("in/a.png")
                    XCTAssertTrue(process.awaitEvent { field($0, "event") == "accepted" })
                } else {
                    usleep(500_000)
                }
                usleep(100_000)
                let sent = monotonicNow()
                process.send(signal)
                let result = process.wait(timeout: (sent - process.started) + 10)
                let stopped = monotonicNow() - sent
                feed.close()
                print("signal \(signal) \(moment): stopped \(Int(stopped * 1000)) ms after the signal")
                XCTAssertFalse(result.timedOut, "\(moment)\n\(result.summary)")
                XCTAssertEqual(result.status, status, "\(moment)\n\(result.summary)")
                XCTAssertLessThan(stopped, promptly, "\(moment): stops without waiting for input")
                XCTAssertEqual(result.stderrLines.count, 1, result.summary)
                XCTAssertEqual(jsonEvents(result).last?["status"] as? Int, Int(status))
                XCTAssertFalse(exists("out.png"), "nothing written")
                assertNoLeftovers()
            }
        }
    }
}
