@preconcurrency import OpenCombine

/// What the command line runs: one collage run, one per folder, or a watch.
protocol CollageJob: AnyObject, Sendable {
    /// The job's events, shared (see `EventHub`); subscribe before `run()`.
    var events: AnyPublisher<PipelineEvent, Never> { get }
    /// Runs to the end; blocks the calling thread.
    func run() -> RunOutcome
    /// SIGINT or SIGTERM: stop soon, leaving no partial output.
    func interrupt(_ status: ExitStatus)
}
