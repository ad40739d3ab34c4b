import XCTest
@testable import CollageKit

/// A job's life, alone: passes found, run and ended, a stop at each step,
/// the finishing, and the facts the outcome rules get.
final class JobMachineTests: XCTestCase {
    private typealias Machine = JobMachine

    private func outcome(_ status: ExitStatus, considered: Int = 0, _ message: String? = nil) -> RunOutcome {
        var summary = Summary()
        summary.considered = considered
        return RunOutcome(status: status, message: message, summary: summary)
    }

    private func running(_ kind: Machine.Kind, finishes: Bool = false) -> Machine {
        var machine = Machine(kind: kind, finishes: finishes)
        XCTAssertEqual(machine.handle(.start(problem: nil)), [.seek])
        XCTAssertEqual(machine.handle(.found(true, othersSkipped: 0)), [.runPass])
        XCTAssertEqual(machine.state, .running)
        return machine
    }

    private func facts(_ actions: [Machine.Action]) -> OutcomeFacts? {
        guard actions.count == 1, case .end(let facts) = actions[0] else { return nil }
        return facts
    }

    func testOnePassThenTheEnd() {
        var machine = running(.single)
        XCTAssertEqual(machine.handle(.passEnded(outcome(.success))), [.seek])
        XCTAssertEqual(facts(machine.handle(.found(false, othersSkipped: 0))), OutcomeFacts())
        XCTAssertEqual(machine.state, .ended)
    }

    func testAPassWithNothingToDoSaysWhy() {
        var machine = running(.single)
        _ = machine.handle(.passEnded(outcome(.noInput, "no eligible image found")))
        XCTAssertEqual(facts(machine.handle(.found(false, othersSkipped: 0)))?.nothingToDo, "no eligible image found")
    }

    func testTheFolderThatHeldNoEligibleImageIsNoted() {
        var machine = running(.folders)
        XCTAssertEqual(machine.handle(.passEnded(outcome(.noInput, considered: 2))), [.noteNothingEligible, .seek])
        XCTAssertEqual(machine.handle(.found(true, othersSkipped: 0)), [.runPass])
        XCTAssertEqual(machine.handle(.passEnded(outcome(.noInput))), [.seek], "a folder without images is passed quietly")
        let end = facts(machine.handle(.found(false, othersSkipped: 0)))
        XCTAssertEqual(end?.nothingToDo, "no folder holds an eligible image")
        XCTAssertEqual(end?.scope, .folders)
    }

    func testFoldersOfOtherShardsAreThisShardsPart() {
        var machine = running(.folders)
        _ = machine.handle(.passEnded(outcome(.noInput)))
        XCTAssertEqual(facts(machine.handle(.found(false, othersSkipped: 2)))?.nothingToDo, nil)
    }

    func testAFailureToWriteEndsTheJob() {
        for kind: Machine.Kind in [.single, .folders, .watch] {
            var machine = running(kind, finishes: true)
            let end = facts(machine.handle(.passEnded(outcome(.ioError, "out.jpg: disk full"))))
            XCTAssertEqual(end?.failure, RunFailure(status: .ioError, message: "out.jpg: disk full"), "\(kind)")
        }
    }

    func testAWatchGoesOnAfterFailedInputsAndNothingToDo() {
        var machine = running(.watch)
        XCTAssertEqual(machine.handle(.passEnded(outcome(.someInputsFailed))), [.seek])
        XCTAssertEqual(machine.handle(.found(true, othersSkipped: 0)), [.runPass])
        XCTAssertEqual(machine.handle(.passEnded(outcome(.noInput))), [.seek])
    }

    func testAStopReachesThePassThenEndsTheJobWhenItEnds() {
        var machine = running(.folders)
        XCTAssertEqual(machine.handle(.interrupted(.terminated)), [.interruptPass(.terminated)])
        XCTAssertEqual(machine.handle(.interrupted(.interrupted)), [], "the first stop counts")
        let end = facts(machine.handle(.passEnded(outcome(.terminated))))
        XCTAssertEqual(end?.interruption, .terminated)
    }

    func testTheOnePassSaysHowItWasStopped() {
        var machine = running(.single)
        _ = machine.handle(.interrupted(.terminated))
        let line = "interrupted while waiting for another run: nothing written"
        let end = facts(machine.handle(.passEnded(outcome(.terminated, line))))
        XCTAssertEqual(end?.interruptionLine, line)
        XCTAssertEqual(OutcomeRules.decide(end ?? OutcomeFacts()).message, line)
    }

    func testAStopWhileSeekingWakesTheSeekAndNoPassRuns() {
        var machine = running(.watch)
        _ = machine.handle(.passEnded(outcome(.success)))
        XCTAssertEqual(machine.handle(.interrupted(.interrupted)), [.stopSeeking])
        let end = facts(machine.handle(.found(true, othersSkipped: 0)))
        XCTAssertEqual(end?.interruption, .interrupted, "a pass found as the stop came is not run")
        XCTAssertEqual(end?.scope, .watch)
    }

    func testAStopBeforeTheStart() {
        var machine = Machine(kind: .single)
        XCTAssertEqual(machine.handle(.interrupted(.terminated)), [])
        XCTAssertEqual(facts(machine.handle(.start(problem: nil)))?.interruption, .terminated)
    }

    func testAProblemBeforeTheStartEndsTheJob() {
        var machine = Machine(kind: .single, finishes: true)
        let problem = RunFailure(status: .cannotCreateOutput, message: "cannot write the page to folder 'x'")
        XCTAssertEqual(facts(machine.handle(.start(problem: problem)))?.failure, problem)
    }

    func testThePageIsWrittenOnlyAfterCollagesWereMade() {
        var made = running(.single, finishes: true)
        _ = made.handle(.passEnded(outcome(.someInputsFailed)))
        XCTAssertEqual(made.handle(.found(false, othersSkipped: 0)), [.finish])
        let failure = RunFailure(status: .ioError, message: "cannot write the page: disk full")
        XCTAssertEqual(facts(made.handle(.finished(failure)))?.failure, failure)

        var none = running(.single, finishes: true)
        _ = none.handle(.passEnded(outcome(.noInput, "no eligible image found")))
        XCTAssertNotNil(facts(none.handle(.found(false, othersSkipped: 0))), "no page for a job that made nothing")

        var stopped = running(.single, finishes: true)
        _ = stopped.handle(.interrupted(.interrupted))
        XCTAssertEqual(facts(stopped.handle(.passEnded(outcome(.interrupted))))?.interruption, .interrupted)
    }

    func testFailOnFlagReachesTheFacts() {
        var machine = Machine(kind: .single, failOnFlag: true)
        _ = machine.handle(.start(problem: nil))
        _ = machine.handle(.found(true, othersSkipped: 0))
        _ = machine.handle(.passEnded(outcome(.success)))
        XCTAssertEqual(facts(machine.handle(.found(false, othersSkipped: 0)))?.failOnFlag, true)
    }

    func testEndedTakesNoInput() {
        var machine = running(.single)
        _ = machine.handle(.passEnded(outcome(.success)))
        _ = machine.handle(.found(false, othersSkipped: 0))
        for input: Machine.Input in [.start(problem: nil), .found(true, othersSkipped: 0),
                                     .passEnded(outcome(.success)), .interrupted(.interrupted), .finished(nil)] {
            XCTAssertEqual(machine.handle(input), [], "\(input)")
        }
    }
}
