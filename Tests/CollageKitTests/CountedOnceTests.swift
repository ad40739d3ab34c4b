@preconcurrency import OpenCombine
import Locking
import XCTest
@testable import CollageKit

/// Each event is counted once: a pass counts its own (its `Tally`), and the
/// job adds what each pass counted, read from its outcome, to the events of
/// its own; it does not count a pass's events again.
final class CountedOnceTests: XCTestCase {
    /// A pass that tells `script` and ends with `summary` as its counts.
    private final class ScriptedPass: CollageJob {
        private let hub = EventHub()
        let script: [PipelineEvent]
        let summary: Summary
        init(_ script: [PipelineEvent], summary: Summary) { (self.script, self.summary) = (script, summary) }
        var events: AnyPublisher<PipelineEvent, Never> { hub.events }
        func run() -> RunOutcome {
            for event in script { hub.send(event) }
            return RunOutcome(status: .success, message: nil, summary: summary)
        }
        func interrupt(_ status: ExitStatus) {}
    }

    private final class GivenPasses: PassSource {
        private let passes: Locked<[Pass]>
        init(_ passes: [Pass]) { self.passes = Locked(passes) }
        func next(report: @escaping @Sendable (PipelineEvent) -> Void) -> (pass: Pass?, othersSkipped: Int) {
            (passes.withLock { $0.isEmpty ? nil : $0.removeFirst() }, 0)
        }
        func stop() { passes.withLock { $0 = [] } }
    }

    private func summary(failed: Int = 0, unchanged: Int = 0, used: Int = 0) -> Summary {
        var summary = Summary()
        (summary.failed, summary.unchanged, summary.used) = (failed, unchanged, used)
        return summary
    }

    func testTheJobsCountsAreWhatItsPassesCounted() {
        // The pass tells one failure but counted two (one told before the
        // job listened, say): the job takes the pass's count, not its own.
        let first = ScriptedPass([.failed(path: PathName("a.jpg"), error: "corrupt")], summary: summary(failed: 2))
        let second = ScriptedPass([.unchanged(output: PathName("b.jpg"), images: [PathName("1.jpg"), PathName("2.jpg")])],
                                  summary: summary(unchanged: 1, used: 2))
        let job = JobRun(.folders, passes: GivenPasses([Pass(job: first), Pass(job: second)]))
        let log = EventLog()
        let listening = job.events.sink { log.record($0) }
        let outcome = job.run()
        listening.cancel()
        XCTAssertEqual(outcome.summary, summary(failed: 2, unchanged: 1, used: 2))
        guard case .finished(let told)? = log.events.last else { return XCTFail("no finished event: \(log.events)") }
        XCTAssertEqual(told.summary, outcome.summary)
    }

    func testALaterWatchTicksUntoldUnchangedOutputsAreTakenOut() {
        let images = [PathName("1.jpg"), PathName("2.jpg"), PathName("3.jpg")]
        let tick = ScriptedPass([.unchanged(output: PathName("out.jpg"), images: images),
                                 .failed(path: PathName("x.jpg"), error: "corrupt")],
                                summary: summary(failed: 1, unchanged: 1, used: 3))
        let job = JobRun(.folders, passes: GivenPasses([Pass(job: tick, quietWhenUnchanged: true)]))
        let log = EventLog()
        let listening = job.events.sink { log.record($0) }
        let outcome = job.run()
        listening.cancel()
        XCTAssertEqual(outcome.summary, summary(failed: 1))
        XCTAssertFalse(log.events.contains { if case .unchanged = $0 { true } else { false } }, "not told again")
    }
}
