import Dispatch
import Glibc
@preconcurrency import OpenCombine

/// `--watch`: a first pass, then a pass on every tick of the seed's
/// DispatchTimer publisher. Each pass after the first skips an output whose
/// inputs and options are unchanged (the `--skip-unchanged` state), so only
/// a changed folder is redone. The timer feeds a pausable sink: while a pass
/// runs no tick is taken. SIGINT or SIGTERM ends it between or during a
/// pass, leaving no partial output.
public final class WatchRun: CollageJob, @unchecked Sendable {
    private let interval: Double
    private let makePass: (_ first: Bool) -> CollageJob
    private let subject = PassthroughSubject<PipelineEvent, Never>()
    private let shared: Publishers.ShareReplay<PassthroughSubject<PipelineEvent, Never>>
    private let timerQueue = DispatchQueue(label: "collage.watch")
    private let stopped = DispatchSemaphore(value: 0)
    private let state = Locked<(stop: ExitStatus?, current: CollageJob?, summary: Summary, fatal: RunOutcome?)>(
        (nil, nil, Summary(), nil))

    /// `makePass(first)` makes one pass; passes after the first must skip
    /// unchanged outputs.
    public init(interval: Double, makePass: @escaping (_ first: Bool) -> CollageJob) {
        self.interval = interval
        self.makePass = makePass
        shared = subject.shareReplay(capacity: 64)
    }

    public var events: AnyPublisher<PipelineEvent, Never> { shared.eraseToAnyPublisher() }

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
            subject.send(.notice("watching for changes every \(interval) s; Ctrl-C stops"))
            let sink = Locked<Pausable?>(nil)
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
        while state.withLock({ $0.current != nil }) { usleep(10_000) }
        let (stop, summary, fatal) = state.withLock { ($0.stop, $0.summary, $0.fatal) }
        let outcome: RunOutcome
        if let stop {
            outcome = RunOutcome(status: stop, message: "stopped watching (\(summary.written) collage(s) written)", summary: summary)
        } else {
            outcome = RunOutcome(status: fatal!.status, message: fatal!.message, summary: summary)
        }
        subject.send(.finished(outcome))
        return outcome
    }

    private func pass(first: Bool) {
        let job = makePass(first)
        let go = state.withLock { state -> Bool in
            guard state.stop == nil else { return false }
            state.current = job
            return true
        }
        guard go else { return }
        // The summary counts what the stream shows: an idle rescan's
        // `unchanged` is not sent, so it is not counted either.
        let shown = Locked(Summary())
        let forward = job.events.sink { [subject] event in
            switch event {
            case .finished: return
            case .unchanged where !first: return  // quiet while nothing changes
            default:
                shown.withLock { $0.count(event) }
                subject.send(event)
            }
        }
        let outcome = job.run()
        forward.cancel()
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
