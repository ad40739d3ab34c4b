import XCTest
@testable import CollageKit

/// The run's life, alone: every state meets every input, and the actions
/// it returns are exactly what the shell must do.
final class RunMachineTests: XCTestCase {
    private typealias Machine = RunMachine
    private let quiet = Machine.Action.end(interruption: nil, failure: nil)

    private func collecting(sheets: Bool = true) -> Machine {
        var machine = Machine(sheets: sheets)
        XCTAssertEqual(machine.handle(.start), [.startPipeline])
        XCTAssertEqual(machine.state, .collecting)
        return machine
    }

    private func saving(sheets: Bool = true) -> Machine {
        var machine = collecting(sheets: sheets)
        XCTAssertEqual(machine.handle(.sheet(empty: false, stop: nil)), [.save])
        XCTAssertEqual(machine.state, .saving)
        return machine
    }

    // MARK: - idle

    func testIdleWaitsForTheStartAndIgnoresTheRest() {
        var machine = Machine(sheets: true)
        XCTAssertEqual(machine.handle(.upstreamFinished(stop: nil)), [])
        XCTAssertEqual(machine.handle(.saved(.written(full: true))), [])
        XCTAssertEqual(machine.state, .idle)
        XCTAssertEqual(machine.handle(.start), [.startPipeline])
        XCTAssertEqual(machine.state, .collecting)
        XCTAssertEqual(machine.handle(.start), [], "a second start changes nothing")
        XCTAssertEqual(machine.handle(.unchanged), [], "nor a late check")
    }

    func testAStopBeforeTheStartEndsTheRunAtTheStart() {
        var machine = Machine(sheets: true)
        XCTAssertEqual(machine.handle(.interrupted(.terminated, writing: false)), [])
        XCTAssertEqual(machine.state, .idle)
        XCTAssertEqual(machine.handle(.start), [.end(interruption: .terminated, failure: nil)])
        XCTAssertEqual(machine.state, .ended)
    }

    func testUnchangedOutputsAreReportedAndEndTheRun() {
        var machine = Machine(sheets: true)
        XCTAssertEqual(machine.handle(.unchanged), [.reportUnchanged, quiet])
        XCTAssertEqual(machine.state, .ended)
    }

    func testAFailedCheckEndsTheRunWithIt() {
        var machine = Machine(sheets: false)
        let failure = RunFailure(status: .cannotCreateOutput, message: "cannot write to folder 'x'")
        XCTAssertEqual(machine.handle(.failedBefore(failure)), [.end(interruption: nil, failure: failure)])
    }

    func testAStopWhileCheckingWinsOverUnchanged() {
        var machine = Machine(sheets: true)
        _ = machine.handle(.interrupted(.interrupted, writing: false))
        XCTAssertEqual(machine.handle(.unchanged), [.end(interruption: .interrupted, failure: nil)])
    }

    // MARK: - collecting

    func testASheetIsSaved() {
        _ = saving()
    }

    func testAnEmptySheetAsksForTheNext() {
        var machine = collecting()
        XCTAssertEqual(machine.handle(.sheet(empty: true, stop: nil)), [.requestSheet])
        XCTAssertEqual(machine.state, .collecting)
    }

    func testAnEmptyLastSheetEndsTheRun() {
        var machine = collecting()
        XCTAssertEqual(machine.handle(.upstreamFinished(stop: nil)), [quiet])
        XCTAssertEqual(machine.state, .ended)
        XCTAssertEqual(machine.handle(.sheet(empty: true, stop: nil)), [], "nothing after the end")
    }

    func testASheetCutShortByASignalIsNotSaved() {
        var machine = collecting()
        XCTAssertEqual(machine.handle(.sheet(empty: false, stop: .interrupted)),
                       [.cancelUpstream, .end(interruption: .interrupted, failure: nil)])
    }

    func testUpstreamEndedByASignal() {
        var machine = collecting()
        XCTAssertEqual(machine.handle(.upstreamFinished(stop: .terminated)),
                       [.end(interruption: .terminated, failure: nil)])
    }

    func testInterruptedWhileCollecting() {
        var machine = collecting()
        XCTAssertEqual(machine.handle(.interrupted(.interrupted, writing: false)),
                       [.cancelUpstream, .end(interruption: .interrupted, failure: nil)])
        XCTAssertEqual(machine.handle(.interrupted(.terminated, writing: false)), [], "ended once")
    }

    func testALateSaveResultWhileCollectingIsIgnored() {
        var machine = collecting()
        XCTAssertEqual(machine.handle(.saved(.written(full: false))), [])
        XCTAssertEqual(machine.state, .collecting)
    }

    // MARK: - saving

    func testAfterASheetTheNextIsAskedFor() {
        var machine = saving()
        XCTAssertEqual(machine.handle(.saved(.written(full: true))), [.publishSheet, .requestSheet])
        XCTAssertEqual(machine.state, .collecting)
    }

    func testOneCollageEndsAtTheCap() {
        var machine = saving(sheets: false)
        XCTAssertEqual(machine.handle(.saved(.written(full: true))),
                       [.publishSheet, .cancelUpstream, .noticeLeftOut, quiet])
    }

    func testOneCollageShortOfTheCapLeavesNothingOut() {
        var machine = saving(sheets: false)
        XCTAssertEqual(machine.handle(.saved(.written(full: false))), [.publishSheet, .cancelUpstream, quiet])
    }

    func testTheCapsEndOfTheWalkStillTellsWhatItLeftOut() {
        var machine = saving(sheets: false)
        XCTAssertEqual(machine.handle(.upstreamFinished(stop: nil)), [])
        XCTAssertEqual(machine.handle(.saved(.written(full: true))), [.publishSheet, .noticeLeftOut, quiet])
    }

    func testUpstreamFinishingDuringASaveEndsAfterIt() {
        var machine = saving()
        XCTAssertEqual(machine.handle(.upstreamFinished(stop: nil)), [])
        XCTAssertEqual(machine.state, .saving)
        XCTAssertEqual(machine.handle(.saved(.written(full: true))), [.publishSheet, quiet], "sheets leave nothing out")
    }

    func testASheetWithNothingLeftToWriteGoesOn() {
        var machine = saving()
        XCTAssertEqual(machine.handle(.saved(.nothing)), [.requestSheet])
    }

    func testASaveFailureEndsTheRunWithItsStatus() {
        var machine = saving()
        let failure = RunFailure(status: .ioError, message: "disk full")
        XCTAssertEqual(machine.handle(.saved(.failed(failure))),
                       [.cancelUpstream, .end(interruption: nil, failure: failure)])
        XCTAssertEqual(machine.failure, failure)
        XCTAssertEqual(machine.handle(.upstreamFinished(stop: nil)), [])
    }

    func testInterruptedWhileComposingEndsAtOnce() {
        var machine = saving()
        XCTAssertEqual(machine.handle(.interrupted(.interrupted, writing: false)),
                       [.cancelUpstream, .end(interruption: .interrupted, failure: nil)])
        XCTAssertEqual(machine.handle(.saved(.cancelled)), [], "the abandoned save reports nothing")
    }

    func testInterruptedWhileWritingWaitsForTheWriter() {
        var machine = saving()
        XCTAssertEqual(machine.handle(.interrupted(.terminated, writing: true)), [.cancelUpstream])
        XCTAssertEqual(machine.state, .saving, "the temporary file is still being removed")
        XCTAssertEqual(machine.handle(.saved(.cancelled)), [.cancelUpstream, .end(interruption: .terminated, failure: nil)])
    }

    func testASaveThatFinishedAsTheStopCameStillCounts() {
        var machine = saving()
        XCTAssertEqual(machine.handle(.interrupted(.interrupted, writing: true)), [.cancelUpstream])
        XCTAssertEqual(machine.handle(.saved(.written(full: true))),
                       [.publishSheet, .end(interruption: .interrupted, failure: nil)], "published, nothing left-out told")
    }

    // MARK: - ended

    func testEndedTakesNoInput() {
        var machine = saving(sheets: false)
        _ = machine.handle(.saved(.written(full: true)))
        for input: Machine.Input in [.start, .unchanged, .sheet(empty: false, stop: nil), .upstreamFinished(stop: nil),
                                     .saved(.written(full: true)), .interrupted(.interrupted, writing: true)] {
            XCTAssertEqual(machine.handle(input), [], "\(input)")
            XCTAssertEqual(machine.state, .ended)
        }
    }
}
