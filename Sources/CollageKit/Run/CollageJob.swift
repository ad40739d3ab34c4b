import Logging
@preconcurrency import OpenCombine

/// What the command line runs: one collage run, one per folder, or a watch.
public protocol CollageJob: AnyObject, Sendable {
    /// The job's events, shared (see `EventHub`); subscribe before `run()`.
    var events: AnyPublisher<PipelineEvent, Never> { get }
    /// Runs to the end; blocks the calling thread.
    func run() -> RunOutcome
    /// SIGINT or SIGTERM: stop soon, leaving no partial output.
    func interrupt(_ status: ExitStatus)
}

/// The kinds of run, all over the same core (`CollageRun`).
public enum Jobs {
    /// One collage (or its sheets), one per folder, or either watched: a
    /// first pass, then one every `watchEvery` seconds that redoes only
    /// what changed.
    public static func make(_ configuration: CollageConfiguration, perFolder: Bool, watchEvery interval: Double?,
                            logger: Logger) -> CollageJob {
        let make: @Sendable (CollageConfiguration) -> CollageJob = { configuration in
            perFolder ? PerFolderRun(configuration: configuration, logger: logger)
                      : CollageRun(configuration: configuration, logger: logger)
        }
        guard let interval else {
            let job = make(configuration)
            let finishes = configuration.htmlPage != nil || configuration.failOnFlag
            return finishes ? FinishingJob(job, configuration: configuration) : job
        }
        return WatchRun(interval: interval) { first in
            var pass = configuration
            pass.recordState = true
            if !first { pass.skipUnchanged = true }
            return make(pass)
        }
    }
}

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
        flagged += other.flagged
        paired += other.paired
        passedOver.add(other.passedOver)
    }
}
