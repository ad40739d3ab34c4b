import Dispatch
import Locking
import Logging
@preconcurrency import OpenCombine

/// One job running on a thread of its own: its events as they happen, its
/// outcome when it ends, and a way to stop it.
///
/// Start one with ``Collage/start(_:logger:)-(Configuration,_)``. The job starts at
/// once, on a dedicated thread: its work (walking folders, decoding with
/// libvips, writing files) blocks threads, so it never runs on Swift's
/// cooperative pool. ``events`` is subscribed before the job starts, so it
/// holds every event, in order, ending with ``PipelineEvent/finished(_:)``.
///
/// ```swift
/// let session = Collage.start(configuration)
/// for await event in session.events {
///     if case .written(let sheet) = event { print(sheet.output) }
/// }
/// let outcome = await session.outcome()
/// ```
///
/// The session runs until its job ends, whether or not anyone awaits it.
/// Cancelling a task that awaits ``outcome()`` stops the job, as
/// ``cancel(_:)`` does. Prefer ``Collage/run(_:logger:observing:)``
/// where the run belongs to one task: it cannot outlive the call.
public final class CollageSession: Sendable {
    /// The job's events, in order, ending with ``PipelineEvent/finished(_:)``
    /// when the job ends (the stream then finishes). One task iterates it:
    /// an `AsyncStream` has one consumer.
    ///
    /// Events wait in an unbounded buffer until read. A run sends a few per
    /// image, so even thousands of photos buffer little; a bounded buffer
    /// would drop events (the final one among them, or the ones before it)
    /// and waiting for the reader would hold up the pipeline's own queue.
    /// A watch that nobody reads keeps buffering: read it, or run it with
    /// ``Collage/run(_:logger:)``, which keeps no events.
    public let events: AsyncStream<PipelineEvent>

    private let job: (any CollageJob)?

    private struct State {
        var outcome: RunOutcome?
        var waiters: [CheckedContinuation<RunOutcome, Never>] = []
        /// The subscription that feeds `events`, kept until the last event is through.
        var subscription: AnyCancellable?
    }
    private let state: Locked<State>  // the run's thread and the awaiting task (see `Locked`)

    /// Resolves the configuration, makes the job and starts it;
    /// `observesEvents: false` leaves `events` empty and subscribes to
    /// nothing. `cancelled`: the task that asked was cancelled already, so
    /// the job is stopped before it starts (it then does nothing, and ends
    /// as stopped).
    convenience init(_ configuration: Configuration, logger: Logger, observesEvents: Bool, cancelled: Bool = false) {
        let resolved: Result<Configuration.Resolved, ConfigurationError>
        do throws(ConfigurationError) {
            resolved = .success(try configuration.resolve())
        } catch {
            resolved = .failure(error)
        }
        self.init(resolved, logger: logger, observesEvents: observesEvents, cancelled: cancelled)
    }

    /// Makes the job of a configuration resolved already (or the usage
    /// error its resolution found) and starts it.
    init(_ resolution: Result<Configuration.Resolved, ConfigurationError>, logger: Logger, observesEvents: Bool,
         cancelled: Bool = false) {
        let (stream, continuation) = AsyncStream.makeStream(of: PipelineEvent.self, bufferingPolicy: .unbounded)
        events = stream
        let resolved: Configuration.Resolved
        switch resolution {
        case .success(let value): resolved = value
        case .failure(let error):
            // What the command line calls a usage error, found before anything starts.
            let outcome = RunOutcome(status: error.status, message: error.message, summary: Summary())
            if observesEvents { continuation.yield(.finished(outcome)) }
            continuation.finish()
            job = nil
            state = Locked(State(outcome: outcome))
            return
        }
        let job = Jobs.make(resolved, logger: logger)
        self.job = job
        // Subscribed before the job starts: nothing is missed. `finished` is
        // a job's last event; the stream finishes with it.
        let lastEvent = DispatchSemaphore(value: 0)
        let subscription = observesEvents ? job.events.sink { event in
            continuation.yield(event)
            if case .finished = event {
                continuation.finish()
                lastEvent.signal()
            }
        } : nil
        if !observesEvents { continuation.finish() }
        state = Locked(State(subscription: subscription))
        if cancelled { job.interrupt(.terminated) }

        // A queue of its own: the job blocks the thread it runs on, which
        // must not be one of Swift's cooperative pool.
        DispatchQueue(label: "collage.run").async { [self] in
            let outcome = job.run()
            if observesEvents {
                // A job sends `finished` before `run()` returns, but the
                // shared stream may still be handing it over on another
                // thread: wait for it (a moment at most). A job that never
                // sent it still ends the stream, with its outcome.
                if lastEvent.wait(timeout: .now() + .seconds(5)) == .timedOut {
                    logger.warning("the job ended without its finished event")
                    continuation.yield(.finished(outcome))
                    continuation.finish()
                }
            }
            resolve(outcome)
        }
    }

    /// How the job ended. Waits, without blocking a thread, until it has;
    /// by then ``events`` has received every event, `finished` last.
    ///
    /// Cancelling the awaiting task stops the job as SIGTERM would (see
    /// ``cancel(_:)``); this still returns the job's outcome once it has
    /// stopped, normally ``ExitStatus/terminated``, with no partial output
    /// left. A job that had already ended keeps the outcome it had.
    public func outcome() async -> RunOutcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<RunOutcome, Never>) in
                let ended: RunOutcome? = state.withLock { state in
                    if let outcome = state.outcome { return outcome }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ended { continuation.resume(returning: ended) }
            }
        } onCancel: {
            cancel(.terminated)
        }
    }

    /// Stops the job soon, as the command line does on a signal: the
    /// pipeline is cancelled, a file being written is removed, and nothing
    /// partial is left. `status` is the outcome's: ``ExitStatus/terminated``
    /// (SIGTERM, the default) or ``ExitStatus/interrupted`` (SIGINT).
    /// Returns at once; ``outcome()`` says when the job has stopped. Once
    /// the job has ended, this does nothing; a second call changes nothing.
    public func cancel(_ status: ExitStatus = .terminated) {
        precondition(status == .terminated || status == .interrupted,
                     "a job is stopped as by SIGTERM (.terminated) or SIGINT (.interrupted), not \(status)")
        guard let job, state.withLock({ $0.outcome == nil }) else { return }
        job.interrupt(status)
    }

    /// The job has ended: every waiter gets its outcome.
    private func resolve(_ outcome: RunOutcome) {
        let (waiters, subscription) = state.withLock { state in
            state.outcome = outcome
            defer { (state.waiters, state.subscription) = ([], nil) }
            return (state.waiters, state.subscription)
        }
        subscription?.cancel()
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
