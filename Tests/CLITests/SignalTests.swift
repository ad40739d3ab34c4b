import Foundation
import Glibc
import Vips
import XCTest

/// SIGINT and SIGTERM (docs/what-happens-when.md: "the pipeline is
/// cancelled through its subscriptions, a save in progress removes its
/// temporary file"; 130 / 143, the exit-status table's rows, are at the
/// end: a signal after the first event). Each other test first proves the moment it signals
/// at: after a sheet was reported written, while a sheet is being written
/// (the run is stopped with SIGSTOP while its temporary file is on disk,
/// signalled, and let go), and while the run is blocked polling its
/// standard input. That the signal ended the run is shown by what it left
/// undone (sheets not written, a list never finished), never by how long
/// it took.
final class SignalTests: CLITestCase {
    private func makeSlowInputs(count: Int = 40) throws {
        makeFolder("big")
        write(try ExitStatusTests.bigNoisyJPEG(), to: "big/000.jpg")
        for index in 1..<count { hardLink("big/000.jpg", b(String(format: "big/%03d.jpg", index))) }
    }

    /// A `--sheets --max 4` run over `big`: once `moment` has proved its
    /// moment (it returns what it proved, or nil when the run ended first),
    /// sends `signal`, lets a frozen run go on, and checks the end: the
    /// status, one stderr line, the summary last (with --json), no
    /// temporary or lock file, every sheet in the folder reported written
    /// and complete, and fewer sheets than the input makes (`sheets`): the
    /// signal ended the run, not the end of its input. Returns the outputs
    /// reported written.
    @discardableResult
    private func interrupt(_ signal: Int32, status: Int32, json: Bool = true, size: String = "1200x800",
                           sheets: Int, moment: (RunningProcess, FolderEvents) -> String?) throws -> [String] {
        _ = try runProcess([b("rm"), b("-rf"), b(path("out"))])
        makeFolder("out")
        let folder = try FolderEvents(path("out"))
        let process = try start(["big", "--sheets", "--max", "4", "--size", size, "-o", "out/sheet.png"]
                                + (json ? ["--json"] : []))
        guard let proved = moment(process, folder) else {
            XCTFail("the moment never came\n\(process.wait(timeout: 120).summary)")
            return []
        }
        process.send(signal)
        process.thaw()
        let result = process.wait(timeout: 120)
        XCTAssertFalse(result.timedOut, "\(proved): hung\n\(result.summary)")
        XCTAssertEqual(result.status, status, "\(proved)\n\(result.summary)")
        XCTAssertEqual(result.stderrLines.count, 1, "\(proved): one line\n\(result.summary)")
        XCTAssertTrue(result.stderrText.contains("interrupted"), result.summary)
        let reported: [String]
        if json {
            let all = jsonEvents(result)
            XCTAssertEqual(all.last?["event"] as? String, "summary", proved)
            XCTAssertEqual(all.last?["status"] as? Int, Int(status), proved)
            reported = events(all, "written").compactMap { field($0, "output") }
        } else {
            reported = result.stdoutLines
        }
        XCTAssertLessThan(reported.count, sheets, "\(proved): the signal ended the run before its input did")
        assertNoLeftovers("out")
        for name in listingText("out") {
            XCTAssertTrue(reported.contains("out/" + name), "\(proved): \(name) was not reported as written")
            if let sheet = decoded("out/" + name) {
                XCTAssertEqual("\(sheet.width)x\(sheet.height)", size, "\(proved): \(name) is complete")
            }
        }
        print("signal \(signal) \(proved): \(reported.count) of \(sheets) sheets written")
        return reported
    }

    /// After the first sheet was reported written (`written`), with nine to go.
    func testSignalAfterASheetWasWritten() throws {
        try makeSlowInputs()
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            try interrupt(signal, status: status, sheets: 10) { process, _ in
                process.awaitEvent { field($0, "event") == "written" } ? "after a sheet was written" : nil
            }
        }
    }

    /// Without --json: after the first path is printed on stdout. Stdout
    /// then holds only paths of complete sheets.
    func testSignalWithoutJSON() throws {
        try makeSlowInputs()
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            try interrupt(signal, status: status, json: false, sheets: 10) { process, _ in
                process.pump(until: monotonicNow() + 120) { process.hasStdoutLine } ? "after a path was printed" : nil
            }
        }
    }

    /// While sheet k is being written to disk: large PNG sheets (4000x3000
    /// of noise); when a temporary file appears the run is stopped, and if
    /// the file is still there (the write not over), the signal is sent
    /// then (else the run goes on to its next write). The save either
    /// completes (sheet k reported and whole) or removes its temporary file
    /// (k - 1 sheets): never a part, never a temporary file, nothing after k.
    func testSignalWhileASheetIsBeingWritten() throws {
        try makeSlowInputs(count: 16)
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            var writing = 0
            let reported = try interrupt(signal, status: status, size: "4000x3000", sheets: 4) { process, folder in
                guard let sheet = freezeWhileWriting(process, folder) else { return nil }
                writing = sheet
                return "while sheet \(sheet) was being written"
            }
            guard writing > 0 else { continue }
            XCTAssertTrue([writing - 1, writing].contains(reported.count), "sheets up to \(writing): \(reported)")
            print("signal \(signal) while sheet \(writing) was being written: its save "
                  + (reported.count == writing ? "completed" : "removed its temporary file"))
        }
    }

    /// Stops the run while one of its temporary files is on disk; returns
    /// the number of the sheet being written (one more than the sheets
    /// renamed into place so far), or nil if the run ended first.
    private func freezeWhileWriting(_ process: RunningProcess, _ folder: FolderEvents) -> Int? {
        let temporary = { (name: String) in name.contains(".collage-tmp-") }
        var looked = 0
        while true {
            let created = process.pump(until: monotonicNow() + 120, folder: folder) {
                folder.count(.created, temporary) > looked || process.eventsSoFar.contains { field($0, "event") == "summary" }
            }
            guard created, folder.count(.created, temporary) > looked else { return nil }
            looked = folder.count(.created, temporary)
            guard let name = folder.all.last(where: { $0.kind == .created && temporary($0.name) })?.name,
                  process.freeze() == .stopped else { return nil }
            if exists("out/" + name) {
                folder.drain()
                return folder.count(.movedIn) { $0.hasPrefix("sheet-") } + 1
            }
            process.thaw()  // that write was over already: the next one
        }
    }

    /// While the run is blocked in poll() on its standard input (a pipe
    /// with nothing in it), before and after a first path: it stops, writes
    /// nothing, and says so in one line. The list is ended only after the
    /// run has: only the signal can have ended it.
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
                    XCTAssertTrue(process.awaitEvent { field($0, "event") == "accepted" }, moment)
                }
                XCTAssertTrue(process.awaitState { process.isPolling(0) }, "\(moment): the run polls its standard input")
                process.send(signal)
                let result = process.wait(timeout: 120)
                feed.close()
                XCTAssertFalse(result.timedOut, "\(moment): hung\n\(result.summary)")
                XCTAssertEqual(result.status, status, "\(moment)\n\(result.summary)")
                XCTAssertEqual(result.stderrLines.count, 1, result.summary)
                XCTAssertEqual(jsonEvents(result).last?["status"] as? Int, Int(status))
                XCTAssertEqual(events(jsonEvents(result), "accepted").count, givenFirst ? 1 : 0, moment)
                XCTAssertFalse(exists("out.png"), "nothing written")
                assertNoLeftovers()
            }
        }
    }

    // MARK: - The rows 130 and 143 of the exit-status table

    func testSIGINTIs130AndLeavesNoPartialOutput() throws {
        try interruptedRun(signal: SIGINT, status: 130)
    }

    func testSIGTERMIs143AndLeavesNoPartialOutput() throws {
        try interruptedRun(signal: SIGTERM, status: 143)
    }

    /// A run over a few hundred hard links to one large noisy JPEG, with
    /// --sheets, is interrupted once its first --json event is out. It must
    /// stop with the status of the signal before it has made its 13 sheets,
    /// with one line on stderr, and leave in its output folder only complete
    /// sheets it reported as written: no temporary file, no partial output.
    private func interruptedRun(signal: Int32, status: Int32) throws {
        makeFolder("big")
        write(try ExitStatusTests.bigNoisyJPEG(), to: "big/0000.jpg")
        for index in 1..<300 { hardLink("big/0000.jpg", b("big/" + String(format: "%04d.jpg", index))) }
        makeFolder("out")

        let process = try RunningProcess(
            arguments: command([b("big"), b("--sheets"), b("--max"), b("24"), b("--json"), b("-o"), b("out/sheet.jpg")]),
            directory: dir)
        let started = process.pump(until: monotonicNow() + 120) { process.hasStdoutLine }
        XCTAssertTrue(started, "the run started (a first event on stdout)")
        process.send(signal)
        let result = process.wait(timeout: 600)  // a hang guard: the whole run takes less

        XCTAssertFalse(result.timedOut, result.summary)
        XCTAssertEqual(result.status, status, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(all.last?["event"] as? String, "summary", "the summary is still the last line")
        let reported = Set(events(all, "written").compactMap { $0["output"] as? String })
        XCTAssertLessThan(reported.count, 13, "interrupted before the end (300 images, 24 a sheet)")
        for name in listingText("out") {
            XCTAssertFalse(name.hasPrefix("."), "temporary file left: \(name)")
            XCTAssertTrue(reported.contains("out/" + name), "\(name) was not reported as written")
            if let sheet = decoded("out/" + name) {
                XCTAssertEqual([sheet.width, sheet.height], [1200, 800], "\(name) is complete")
            }
        }
    }
}
