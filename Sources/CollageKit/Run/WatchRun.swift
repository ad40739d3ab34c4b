import Dispatch
@preconcurrency import OpenCombine
import Synchronization

/// `--watch`: a first pass, then a pass on every tick of a
/// DispatchTimer publisher. Each pass after the first skips an output whose
/// inputs and options are unchanged (the `--skip-unchanged` state), so only
/// a changed folder is redone. The timer feeds a pausable sink: while a pass
/// runs no tick is taken. SIGINT or SIGTERM ends it between or during a
/// pass, leaving no partial output.
public final class WatchRun: CollageJob, Sendable {
    private let interval: Double
    private let makePass: @Sendable (_ first: Bool) -> CollageJob
    private let hub = EventHub()
    private let timerQueue = DispatchQueue(label: "collage.watch")
    /// Signalled when watching should end: a stop, or a pass that failed for good.
    private let stopped = DispatchSemaphore(value: 0)
    /// Left by each pass when it is over, so the end waits for the one going.
    private let passes = DispatchGroup()
    private struct State {
        var stop: ExitStatus?
        var current: CollageJob?
        var summary = Summary()
        var fatal: RunOutcome?
    }
    private let state = Mutex(State())

    /// `makePass(first)` makes one pass; passes after the first must skip
    /// unchanged outputs.
    public init(interval: Double, makePass: @escaping @Sendable (_ first: Bool) -> CollageJob) {
        self.interval = interval
        self.makePass = makePass
    }

    public var events: AnyPublisher<PipelineEvent, Never> { hub.events }

    public func interrupt(_ status: ExitStatus) {
        let current = state.withLock { state -> CollageJob? in
            state.stop = state.stop ?? status
            return state.current
        }
        current?.interrupt(status)
        stopped.signal()
    }

    public func run() -> RunOutcome {
        pass(first: true)
        if state.withLock({ $0.stop == nil && $0.fatal == nil }) {
            hub.send(.notice("watching for changes every \(interval) s; Ctrl-C stops"))
            let sink = Locked<(any Pausable)?>(nil)
            let subscriber = Publishers.DispatchTimer(interval: .nanoseconds(Int(interval * 1e9)), queue: timerQueue)
                .pausableSink(receiveCompletion: { _ in }, receiveValue: { [self] _ in
                    DispatchQueue.global().async { [self] in
                        pass(first: false)
                        if state.withLock({ $0.fatal != nil }) {
                            stopped.signal()
                        } else {
                            // On the timer's queue, after this tick's delivery has
                            // returned and paused the sink: a quick pass (nothing
                            // changed) could otherwise resume it before it paused,
                            // and the resume would be lost with every later tick.
                            timerQueue.async { sink.withLock { $0 }?.resume() }
                        }
                    }
                    return false  // no tick is taken while a pass runs
                })
            sink.withLock { $0 = subscriber }
            stopped.wait()
            subscriber.cancel()
        }
        // Let a pass in progress finish stopping before reporting.
        passes.wait()
        let (stop, summary, fatal) = state.withLock { ($0.stop, $0.summary, $0.fatal) }
        let outcome: RunOutcome
        if let stop {
            outcome = RunOutcome(status: stop, message: "stopped watching (\(summary.written) collage(s) written)",
                                 summary: summary)
        } else {
            outcome = RunOutcome(status: fatal!.status, message: fatal!.message, summary: summary)
        }
        hub.send(.finished(outcome))
        return outcome
    }

    private func pass(first: Bool) {
        let job = makePass(first)
        // Check and publish under one lock: a stop after this reaches the pass.
        let go = state.withLock { state -> Bool in
            guard state.stop == nil else { return false }
            state.current = job
            passes.enter()
            return true
        }
        guard go else { return }
        defer { passes.leave() }
        // The summary counts what the stream shows: an idle rescan's
        // `unchanged` is not sent, so it is not counted either.
        let shown = Mutex(Summary())
        let outcome = hub.forwarding(job) { event in
            if case .unchanged = event, !first { return false }  // quiet while nothing changes
            shown.withLock { $0.count(event) }
            return true
        }
        state.withLock { state in
            state.current = nil
            state.summary.add(shown.withLock { $0 })
            switch outcome.status {
            case .cannotCreateOutput, .ioError, .usage: state.fatal = outcome
            default: break
            }
        }
    }
}
