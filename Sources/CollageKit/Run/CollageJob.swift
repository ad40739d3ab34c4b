@preconcurrency import OpenCombine

/// What the command line runs: one collage run, one per folder, or a watch.
public protocol CollageJob: AnyObject {
    /// The job's events, shared (see `shareReplay`); subscribe before `run()`.
    var events: AnyPublisher<PipelineEvent, Never> { get }
    /// Runs to the end; blocks the calling thread.
    func run() -> RunOutcome
    /// SIGINT or SIGTERM: stop soon, leaving no partial output.
    func interrupt(_ status: ExitStatus)
}

extension CollageRun: CollageJob {}

extension Summary {
    /// Adds another run's counts to these.
    public mutating func add(_ other: Summary) {
        written += other.written
        used += other.used
        rejected += other.rejected
        failed += other.failed
        unchanged += other.unchanged
        considered += other.considered
        portraits += other.portraits
        planned += other.planned
    }
}
