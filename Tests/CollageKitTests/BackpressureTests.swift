import Dispatch
import Glibc
@preconcurrency import OpenCombine
import Vips
import XCTest
@testable import CollageKit

/// The sink's demand bounds everything upstream: with the sink held (a gate
/// the test opens one sheet at a time), the scanner has emitted at most what
/// was demanded plus the decode window, at most `jobs` decodes ran at once,
/// and no more than the window plus one sheet of decoded tiles (and one
/// canvas) were alive at once.
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

    /// A run held at each save; returns when it is blocked on sheet `sheet`.
    private final class GatedRun: @unchecked Sendable {
        let run: CollageRun
        let reached = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        var outcome: RunOutcome?

        init(_ configuration: CollageConfiguration) {
            run = CollageRun(configuration: configuration)
            run.instrumentation.beforeSave = { [reached, gate] _ in
                reached.signal()
                gate.wait()
            }
        }

        func start() {
            DispatchQueue.global().async { [self] in
                outcome = run.run()
                done.signal()
            }
        }

        func waitForSave(_ file: StaticString = #filePath, _ line: UInt = #line) {
            XCTAssertEqual(reached.wait(timeout: .now() + 20), .success, "the run never reached a save", file: file, line: line)
        }
    }

    private func configuration(jobs: Int, sheets: Bool) -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: [.path(folder.path)])
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
        PixelBuffer.resetPeak()
        let before = PixelBuffer.live.now
        held.start()

        for sheet in 1...5 {
            held.waitForSave()
            let atSave = held.run.instrumentation.snapshot
            // Demand so far: `sheet` sheets of 6. The walk may be ahead only by
            // the decode window (jobs), and only until the sheet was cut.
            XCTAssertLessThanOrEqual(atSave.scanned, sheet * 6 + jobs, "sheet \(sheet): the scan ran ahead of demand")
            XCTAssertGreaterThanOrEqual(atSave.scanned, sheet * 6, "sheet \(sheet)")
            // While the sheet is being written only the decode window may
            // finish; then nothing upstream moves. Give a run that ignored
            // backpressure time to show it, then count twice.
            usleep(150_000)
            let settled = held.run.instrumentation.snapshot
            usleep(150_000)
            let later = held.run.instrumentation.snapshot
            XCTAssertLessThanOrEqual(later.scanned, sheet * 6 + jobs, "sheet \(sheet): scanned past demand and window while paused")
            XCTAssertEqual(later.scanned, settled.scanned, "sheet \(sheet): the scan kept moving while the sink was paused")
            XCTAssertEqual(later.decoding, 0, "sheet \(sheet): still decoding while the sink was paused")
            held.gate.signal()
        }
        XCTAssertEqual(held.done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(held.outcome?.status, .success)
        XCTAssertEqual(held.outcome?.summary.written, 5)
        XCTAssertEqual(held.run.instrumentation.snapshot.scanned, 30)
        XCTAssertLessThanOrEqual(held.run.instrumentation.snapshot.peakDecoding, jobs, "more decodes at once than --jobs")
        XCTAssertGreaterThanOrEqual(held.run.instrumentation.snapshot.peakDecoding, 1)
        // Decoded tiles alive at once: the window, one sheet, and its canvas.
        XCTAssertLessThanOrEqual(PixelBuffer.live.peak - before, jobs + 6 + 1, "more decoded images alive than the bound")
    }

    func testTheCapStopsTheScanAtTheWindow() throws {
        let held = GatedRun(configuration(jobs: 3, sheets: false))
        held.start()
        held.waitForSave()
        XCTAssertLessThanOrEqual(held.run.instrumentation.snapshot.scanned, 6 + 3)
        held.gate.signal()
        XCTAssertEqual(held.done.wait(timeout: .now() + 20), .success)
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
