import Dispatch
import Glibc
import Synchronization
@preconcurrency import OpenCombine
import Vips
import XCTest
@testable import CollageKit

/// The sink's demand bounds everything upstream: with the sink held (a gate
/// the test opens one sheet at a time), the scanner has emitted at most what
/// was demanded plus the decode window, at most `jobs` decodes ran at once,
/// and no more than the window plus one sheet of decoded tiles were alive at
/// once. Every figure is the run's own (its instrumentation), never a
/// process-wide counter, and nothing is timed: the bounds are high-water
/// marks kept by the run while it ran.
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
        private let result = Mutex<RunOutcome?>(nil)
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
            XCTAssertEqual(reached.wait(timeout: .now() + 60), .success, "the run never reached a save", file: file, line: line)
        }

        /// Waits (up to a generous deadline) until `condition` holds of the run's counts.
        func wait(until condition: (RunInstrumentation.Counts) -> Bool) -> RunInstrumentation.Counts {
            let deadline = DispatchTime.now() + 60
            while !condition(run.instrumentation.snapshot) && DispatchTime.now() < deadline { usleep(1000) }
            return run.instrumentation.snapshot
        }
    }

    private func configuration(jobs: Int, sheets: Bool) -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: [.path(folder.pathName)])
        configuration.sheets = sheets
        configuration.maxImages = 6
        configuration.jobs = jobs
        configuration.canvasWidth = 300
        configuration.canvasHeight = 200
        configuration.output = outputs("sheet.png")
        return configuration
    }

    func testASlowSinkHoldsTheScannerAndTheDecoders() throws {
        let jobs = 2
        let held = GatedRun(configuration(jobs: jobs, sheets: true))
        held.start()

        for sheet in 1...5 {
            held.waitForSave()
            // While the sheet is held, the decode window fills (the walk
            // reaches the demanded sheets plus `jobs` images, or the end)
            // and then every decoder is idle: the pipeline is at rest.
            let window = min(30, sheet * 6 + jobs)
            let atRest = held.wait { $0.scanned >= window && $0.decoding == 0 }
            XCTAssertEqual(atRest.scanned, window, "sheet \(sheet): the walk did not stop at the window")
            XCTAssertEqual(atRest.decoding, 0, "sheet \(sheet): still decoding while the sink was paused")
            held.gate.signal()
        }
        XCTAssertEqual(held.done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(held.outcome?.status, .success)
        XCTAssertEqual(held.outcome?.summary.written, 5)
        let counts = held.run.instrumentation.snapshot
        XCTAssertEqual(counts.scanned, 30)
        // Demand while sheet n is written: n sheets of 6, plus the window.
        for (index, scanned) in counts.scannedBySave.enumerated() {
            XCTAssertLessThanOrEqual(scanned, (index + 1) * 6 + jobs, "sheet \(index + 1): scanned past demand and window while paused")
        }
        XCTAssertLessThanOrEqual(counts.peakDecoding, jobs, "more decodes at once than --jobs")
        XCTAssertGreaterThanOrEqual(counts.peakDecoding, 1)
        // Decoded tiles alive at once: one sheet and the window.
        XCTAssertLessThanOrEqual(counts.peakHeldTiles, 6 + jobs, "more decoded images alive than the bound")
        // The save queue lets go of the last sheet just after the run reports its end.
        XCTAssertEqual(held.wait { $0.heldTiles == 0 }.heldTiles, 0, "tiles still held after the run")
    }

    func testTheCapStopsTheScanAtTheWindow() throws {
        let held = GatedRun(configuration(jobs: 3, sheets: false))
        held.start()
        held.waitForSave()
        XCTAssertLessThanOrEqual(held.run.instrumentation.snapshot.scanned, 6 + 3)
        held.gate.signal()
        XCTAssertEqual(held.done.wait(timeout: .now() + 60), .success)
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
