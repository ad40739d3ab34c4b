extension CollageConfiguration {
    /// The decode window's limits: ahead of the sheets only with `--sheets`
    /// (without it there is no next sheet to work ahead for).
    var windowLimits: WindowLimits {
        sheets ? WindowLimits(jobs: jobs, aheadBytes: decodeWindowBytes, aheadCount: decodeWindowImages)
            : .demandOnly(jobs: jobs)
    }
}
