import Dispatch
import Glibc
import Locking
@preconcurrency import OpenCombine
import Vips
import XCTest
@testable import CollageKit

/// The sink's demand bounds everything upstream: with the sink held (a gate
/// the test opens one sheet at a time), the scanner has emitted at most what
/// was demanded plus the decode window's images, at most `jobs` decodes ran
/// at once, the decodes running held at most the memory budget (or one ran
/// alone), and the decoded tiles alive never held more bytes than the
/// window plus one sheet. Every figure is the run's own (its
/// instrumentation and its budget), never a process-wide counter, and
/// nothing is timed: the bounds are high-water marks kept by the run.
final class BackpressureTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var outputs: TemporaryDirectory!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory()
        outputs = try TemporaryDirectory()
        for index in 0..<30 {
            let colour = RGB(red: UInt8(40 + index * 6), green: UInt8(200 - index * 5), blue: 90)
            let name = index < 10 ? "img0\(index).png" : "img\(index).png"
            try writeFlatImage(folder(name), colour, width: 120, height: 80, suffix: ".png")
        }
    }

    /// A run held at each save; `waitForSave` returns when it is blocked on the next sheet.
    private final class GatedRun: Sendable {
        let run: CollageRun
        let reached = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        private let result = Locked<RunOutcome?>(nil)
        var outcome: RunOutcome? { result.withLock { $0 } }

        init(_ configuration: CollageConfiguration) {
            run = CollageRun(configuration: configuration)
            run.instrumentation.holdBeforeSave { [reached, gate] _ in
                reached.signal()
                gate.wait()
            }
        }

        func start() {
            DispatchQueue.global().async { [self] in
                let outcome = run.run()
                result.withLock { $0 = outcome }
                done.signal()
            }
        }

        func waitForSave(_ file: StaticString = #filePath, _ line: UInt = #line) {
            XCTAssertEqual(reached.wait(timeout: .now() + 600), .success, "the run never reached a save", file: file, line: line)
        }

        /// Waits (up to a generous deadline) until `condition` holds of the run's counts.
        func wait(until condition: (RunInstrumentation.Counts) -> Bool) -> RunInstrumentation.Counts {
            let deadline = DispatchTime.now() + 600
            while !condition(run.instrumentation.snapshot) && DispatchTime.now() < deadline { usleep(1000) }
            return run.instrumentation.snapshot
        }
    }

    /// Sheets of six 100x100 tiles (30000 bytes each); a window of three
    /// tiles' bytes and four images.
    private static let tileBytes = 100 * 100 * 3
    private static let window = (bytes: 3 * tileBytes, images: 4)

    private func configuration(jobs: Int, sheets: Bool) -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: [.path(folder.pathName)])
        configuration.sheets = sheets
        configuration.maxImages = 6
        configuration.jobs = jobs
        configuration.canvasWidth = 300
        configuration.canvasHeight = 200
        configuration.decodeWindowBytes = Self.window.bytes
        configuration.decodeWindowImages = Self.window.images
        configuration.output = outputs("sheet.png")
        return configuration
    }

    func testASlowSinkHoldsTheScannerAndTheDecoders() throws {
        let jobs = 2
        let held = GatedRun(configuration(jobs: jobs, sheets: true))
        held.start()
        let oneSheet = 6 * Self.tileBytes

        for sheet in 1...5 {
            held.waitForSave()
            // While the sheet is held, the window fills (the walk reaches the
            // demanded sheets plus the window's images, or the end; tiles are
            // decoded ahead until they hold the window's bytes) and then every
            // decoder is idle: the pipeline is at rest.
            // (No decode running is not enough: it holds for an instant
            // between one decode's end and the next one's start.)
            let scan = min(30, sheet * 6 + Self.window.images)
            let full = sheet < 5 ? oneSheet + Self.window.bytes : oneSheet
            let atRest = held.wait { $0.scanned >= scan && $0.decoding == 0 && $0.heldTileBytes >= full }
            XCTAssertEqual(atRest.scanned, scan, "sheet \(sheet): the walk did not stop at the window")
            XCTAssertEqual(atRest.decoding, 0, "sheet \(sheet): still decoding while the sink was paused")
            XCTAssertLessThanOrEqual(atRest.heldTileBytes, oneSheet + Self.window.bytes,
                                     "sheet \(sheet): more tiles held than the sheet and the window")
            if sheet < 5 {
                XCTAssertEqual(atRest.heldTileBytes, oneSheet + Self.window.bytes,
                               "sheet \(sheet): the window should have decoded ahead to its bytes")
            }
            held.gate.signal()
        }
        XCTAssertEqual(held.done.wait(timeout: .now() + 600), .success)
        XCTAssertEqual(held.outcome?.status, .success)
        XCTAssertEqual(held.outcome?.summary.written, 5)
        let counts = held.run.instrumentation.snapshot
        XCTAssertEqual(counts.scanned, 30)
        // Demand while sheet n is written: n sheets of 6, plus the window's images.
        for (index, scanned) in counts.scannedBySave.enumerated() {
            XCTAssertLessThanOrEqual(scanned, (index + 1) * 6 + Self.window.images,
                                     "sheet \(index + 1): scanned past demand and window while paused")
        }
        XCTAssertLessThanOrEqual(counts.peakDecoding, jobs, "more decodes at once than --jobs")
        XCTAssertGreaterThanOrEqual(counts.peakDecoding, 1)
        XCTAssertLessThanOrEqual(counts.peakHeldTileBytes, oneSheet + Self.window.bytes,
                                 "decoded tiles held more than one sheet and the window")
        // The save queue lets go of the last sheet just after the run reports its end.
        XCTAssertEqual(held.wait { $0.heldTiles == 0 }.heldTiles, 0, "tiles still held after the run")
    }

    /// A sheet written lets go of its tiles before the run asks for the
    /// next: the save's thread is held just after it handed sheet n over
    /// (where it used to still hold the decoded tiles it composed) until
    /// the next sheet and the window are decoded; the tiles alive then are
    /// that sheet's and the window's, none of sheet n's. (With the tiles
    /// kept until the save's thread went on, a slow thread held ten or
    /// more tiles here: the bound of the test above broke under
    /// ThreadSanitizer.)
    func testASavedSheetLetsGoOfItsTilesBeforeTheNextIsDecoded() throws {
        let run = CollageRun(configuration: configuration(jobs: 2, sheets: true))
        let oneSheet = 6 * Self.tileBytes
        let seen = Locked<[Int: RunInstrumentation.Counts]>([:])
        run.instrumentation.holdAfterReport { [instrumentation = run.instrumentation] sheet in
            guard sheet < 5 else { return }
            let decoded = min(30, (sheet + 1) * 6 + Self.window.bytes / Self.tileBytes)
            let deadline = DispatchTime.now() + 600
            var counts = instrumentation.snapshot
            while !(counts.decodes >= decoded && counts.decoding == 0) && DispatchTime.now() < deadline {
                usleep(1000)
                counts = instrumentation.snapshot
            }
            seen.withLock { $0[sheet] = counts }
        }
        let outcome = run.run()
        XCTAssertEqual(outcome.status, .success)
        XCTAssertEqual(outcome.summary.written, 5)
        let counts = seen.withLock { $0 }
        XCTAssertEqual(counts.keys.sorted(), [1, 2, 3, 4])
        for (sheet, at) in counts.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(at.decodes, min(30, (sheet + 1) * 6 + Self.window.bytes / Self.tileBytes), "sheet \(sheet)")
            XCTAssertLessThanOrEqual(at.heldTileBytes, oneSheet + Self.window.bytes,
                                     "sheet \(sheet): its tiles still held beside the next sheet's and the window")
        }
        XCTAssertLessThanOrEqual(run.instrumentation.snapshot.peakHeldTileBytes, oneSheet + Self.window.bytes)
    }

    /// Giant progressive JPEGs among small PNGs: the giants never decode two
    /// at once within the budget, small ones decode beside them, and the
    /// tiles held stay within the window plus one sheet.
    func testGiantsAndSmallImagesStayWithinTheBudgetAndTheWindow() throws {
        let mixed = try TemporaryDirectory()
        for index in 0..<24 {
            let colour = RGB(red: UInt8(20 + index * 9), green: 90, blue: UInt8(200 - index * 7))
            let name = "img\(index < 10 ? "0" : "")\(index)"
            if index % 5 == 2 {
                // 1600x1200 progressive 4:2:0: 5.8 MB of coefficients, plus libvips' working set.
                try writeFlatImage(mixed(name + ".jpg"), colour, width: 1600, height: 1200, suffix: ".jpg[interlace]")
            } else {
                try writeFlatImage(mixed(name + ".png"), colour, width: 150, height: 100, suffix: ".png")
            }
        }
        var configuration = configuration(jobs: 2, sheets: true)
        configuration.inputs = [.path(mixed.pathName)]
        func estimate(_ path: PathName) throws -> Int {
            let file = try OpenFile.open(path).get()
            return try withExtendedLifetime(file) { try ImageFile.header(descriptor: file.descriptor).decodeBytes }
        }
        let giant = try estimate(mixed("img02.jpg")), small = try estimate(mixed("img00.png"))
        XCTAssertGreaterThan(giant, 10 << 20, "the giant's estimate counts its coefficients")
        configuration.decodeMemoryBudget = giant + small + (1 << 20)  // a giant and a small one, never two giants
        let held = GatedRun(configuration)
        held.start()
        for _ in 1...4 {
            held.waitForSave()
            held.gate.signal()
        }
        XCTAssertEqual(held.done.wait(timeout: .now() + 600), .success)
        XCTAssertEqual(held.outcome?.status, .success)
        XCTAssertEqual(held.outcome?.summary.written, 4)
        XCTAssertLessThanOrEqual(held.run.budget.used.peak, configuration.decodeMemoryBudget,
                                 "decodes held more than the budget at once")
        // Whether a small decode overlaps a giant in this run depends on
        // scheduling; that one may is the budget's rule, checked below
        // without threads.
        let counts = held.run.instrumentation.snapshot
        XCTAssertLessThanOrEqual(counts.peakHeldTileBytes, 6 * Self.tileBytes + Self.window.bytes,
                                 "decoded tiles held more than one sheet and the window")
        let budget = DecodeBudget(limit: configuration.decodeMemoryBudget, allocator: .reuseUnlessHeavy)
        XCTAssertTrue(budget.tryAcquire(giant))
        XCTAssertTrue(budget.tryAcquire(small), "a small image may decode beside a giant")
        XCTAssertFalse(budget.tryAcquire(giant), "two giants at once")
        budget.release(small)
        budget.release(giant)
        XCTAssertTrue(budget.tryAcquire(giant), "the giant's bytes came back")
    }

    func testTheCapStopsTheScanAtTheWindow() throws {
        let held = GatedRun(configuration(jobs: 3, sheets: false))
        held.start()
        held.waitForSave()
        XCTAssertLessThanOrEqual(held.run.instrumentation.snapshot.scanned, 6 + 3)
        held.gate.signal()
        XCTAssertEqual(held.done.wait(timeout: .now() + 600), .success)
        XCTAssertEqual(held.outcome?.summary.written, 1)
        XCTAssertLessThanOrEqual(held.run.instrumentation.snapshot.scanned, 6 + 3,
                                 "the scan went on past the cap and its window")
        XCTAssertLessThanOrEqual(held.run.instrumentation.snapshot.peakDecoding, 3)
    }

    /// Output is the same bytes whatever the number of decodes at once.
    func testJobsDoNotChangeTheOutput() throws {
        var written: [[[UInt8]]] = []
        for jobs in [1, 4] {
            var configuration = configuration(jobs: jobs, sheets: true)
            configuration.output = outputs("jobs\(jobs)-{n}.png")
            XCTAssertEqual(CollageRun(configuration: configuration).run().status, .success)
            written.append(try (1...5).map { try readFile(outputs("jobs\(jobs)-000\($0).png")) })
        }
        XCTAssertEqual(written[0], written[1], "--jobs 1 and --jobs 4 wrote different bytes")
    }
}
