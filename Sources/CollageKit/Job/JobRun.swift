import Logging
@preconcurrency import OpenCombine
import Locking

/// One pass of a job: a run to the end, and what it is about.
struct Pass: Sendable {
    let job: CollageJob
    /// The folder it makes the collage of (`--per-folder`).
    var folder: PathName?
    /// The INPUT the folder is below.
    var root: PathName?
    /// The group it makes the collage of (`--group-by`).
    var group: String?
    /// A later pass of `--watch`: outputs found unchanged are not told again.
    var quietWhenUnchanged = false
}

/// Where a job's passes come from: the inputs once, each folder, each tick.
protocol PassSource: Sendable {
    /// The next pass, or nil when there is none; `othersSkipped` counts
    /// folders passed over as other shards'. May block (a watch waits for
    /// its tick) until `stop()`.
    func next(report: @escaping @Sendable (PipelineEvent) -> Void) -> (pass: Pass?, othersSkipped: Int)
    /// Ends a `next` that is waiting, and every later one.
    func stop()
}

/// The shell of `JobMachine`: every kind of run the command line makes is
/// one of these. It feeds the machine under one lock and performs its
/// actions: the long ones (finding a pass, running it, writing the page) on
/// the thread that called `run`, one after another; a stop's on the thread
/// that brought the signal, so that it reaches the pass that is running.
final class JobRun: CollageJob, Sendable {
    private let passes: any PassSource
    /// What the job does once its passes are over (`--html`'s page, `--plan`'s file).
    private let finishing: (any JobFinishing)?
    private let hub = EventHub()
    private struct Shell {
        var machine: JobMachine
        var current: Pass?
        /// The job's counts: each ended pass's own (its `Tally`, read from
        /// its outcome), and the job's own events. No event is counted
        /// twice: a pass's are counted by the pass alone.
        var summary = Summary()
    }
    /// Behind a pthread mutex (`Locked`), not a `Mutex`: a stop feeds it
    /// from another thread while the run feeds it, and ThreadSanitizer
    /// does not see a contended `Mutex` handed over.
    private let shell: Locked<Shell>

    init(_ kind: JobMachine.Kind, passes: any PassSource, finishing: (any JobFinishing)? = nil,
         failOnFlag: Bool = false) {
        self.passes = passes
        self.finishing = finishing
        shell = Locked(Shell(machine: JobMachine(kind: kind, finishes: finishing != nil, failOnFlag: failOnFlag)))
    }

    var events: AnyPublisher<PipelineEvent, Never> { hub.events }

    func interrupt(_ status: ExitStatus) {
        let (actions, current) = shell.withLock { ($0.machine.handle(.interrupted(status)), $0.current) }
        for action in actions {
            switch action {
            case .interruptPass(let status): current?.job.interrupt(status)
            case .stopSeeking: passes.stop()
            default: preconditionFailure("a stop asks only to stop: \(action)")
            }
        }
    }

    func run() -> RunOutcome {
        var pending = feed(.start(problem: finishing?.prepare()))
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .seek:
                let (pass, others) = passes.next(report: { [self] in send($0) })
                pending += shell.withLock { shell in
                    shell.current = pass
                    return shell.machine.handle(.found(pass != nil, othersSkipped: others))
                }
            case .runPass:
                guard let pass = shell.withLock({ $0.current }) else { preconditionFailure("no pass was found") }
                finishing?.passStarts(pass)
                // A later tick of --watch does not tell the outputs it found
                // unchanged: they are taken out of what the pass counted.
                let untold = Locked((outputs: 0, images: 0))
                let outcome = hub.forwarding(pass.job) { [finishing] event in
                    if case .unchanged(_, let images) = event, pass.quietWhenUnchanged {
                        untold.withLock { $0 = ($0.outputs + 1, $0.images + images.count) }
                        return false
                    }
                    // (Nor the start of each group: a redone group's `written` names it.)
                    if case .group = event, pass.quietWhenUnchanged { return false }
                    finishing?.note(event)
                    return true
                }
                shell.withLock { shell in
                    var counted = outcome.summary
                    let hidden = untold.withLock { $0 }
                    (counted.unchanged, counted.used) = (counted.unchanged - hidden.outputs, counted.used - hidden.images)
                    shell.summary.add(counted)
                }
                finishing?.passEnds(pass)
                pending += feed(.passEnded(outcome))
            case .noteNothingEligible:
                if let folder = shell.withLock({ $0.current?.folder }) {
                    send(.notice("skipped folder '\(folder)': nothing eligible"))
                }
            case .finish:
                pending += feed(.finished(finishing?.finish()))
            case .end(var facts):
                finishing?.abandon()
                facts.summary = shell.withLock { $0.summary }
                let outcome = OutcomeRules.decide(facts)
                hub.send(.finished(outcome))
                return outcome
            case .interruptPass, .stopSeeking:
                preconditionFailure("only a stop asks to stop")
            }
        }
        preconditionFailure("the job machine ended without its outcome")
    }

    private func feed(_ input: JobMachine.Input) -> [JobMachine.Action] {
        shell.withLock { $0.machine.handle(input) }
    }

    /// An event of the job's own (not a pass's): counted (here alone) and sent.
    private func send(_ event: PipelineEvent) {
        shell.withLock { $0.summary.count(event) }
        finishing?.note(event)
        hub.send(event)
    }
}
