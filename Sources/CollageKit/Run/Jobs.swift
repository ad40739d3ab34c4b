import Logging

/// The kinds of run the command line makes, each a `JobRun` (a `JobMachine`
/// driving passes) over the same core, `CollageRun` (a `RunMachine` driving
/// the stages). A new kind of run is a `PassSource` (where its passes come
/// from) and, if its passes are not collage runs, a machine of its own.
public enum Jobs {
    /// One collage (or its sheets), one per folder, or either watched: a
    /// first pass, then one every `watchEvery` seconds that redoes only
    /// what changed.
    public static func make(_ configuration: CollageConfiguration, perFolder: Bool, watchEvery interval: Double?,
                            logger: Logger) -> CollageJob {
        if configuration.diff != nil {
            return JobRun(.single, passes: SinglePass(DiffRun(configuration: diffConfiguration(configuration), logger: logger)),
                          page: configuration.htmlPage)
        }
        // One checker for the whole job: a duplicate across folders or passes is found too.
        let flagger = Flagger(kinds: configuration.flags)
        let collage: @Sendable (CollageConfiguration) -> CollageJob = {
            CollageRun(configuration: $0, flagger: flagger, logger: logger)
        }
        guard let interval else {
            let passes: any PassSource = perFolder ? FolderPasses(configuration, makeRun: collage)
                                                   : SinglePass(collage(configuration))
            return JobRun(perFolder ? .folders : .single, passes: passes, page: configuration.htmlPage,
                          failOnFlag: configuration.failOnFlag)
        }
        return JobRun(.watch, passes: WatchPasses(interval: interval) { first in
            var pass = configuration
            pass.recordState = true
            if !first { pass.skipUnchanged = true }
            return perFolder ? JobRun(.folders, passes: FolderPasses(pass, makeRun: collage)) : collage(pass)
        })
    }

    /// `--diff`: screenshots of any shape are compared; each cell is
    /// captioned with its path and how much changed unless `--label` says
    /// otherwise; the cells, three pictures wide, are laid out in justified
    /// rows unless `--layout` or `--tile` says otherwise (the grids' square
    /// cells would leave them a strip).
    static func diffConfiguration(_ configuration: CollageConfiguration) -> CollageConfiguration {
        var diff = configuration
        diff.allowPortrait = true
        if diff.layoutName == "auto" { diff.layoutName = "justified" }
        if diff.captions.label == nil {
            diff.captions.label = try? Template("{path} · {status} · {pixels} px ({percent})", fields: Template.labelFields)
        }
        return diff
    }
}
