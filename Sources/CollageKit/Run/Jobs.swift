import Logging

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
