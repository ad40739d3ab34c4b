import Logging

/// The kinds of run the command line makes, each a `JobRun` (a `JobMachine`
/// driving passes) over the same core, `CollageRun` (a `RunMachine` driving
/// a `SheetSource`'s sheets to disk). A new kind of run is a `PassSource`
/// (where its passes come from, if it has several) or a `SheetSource`
/// (where a pass's sheets come from) in a folder of its own (Kinds/),
/// chosen here by one branch of `make`.
enum Jobs {
    /// The job a resolved `Configuration` asks for.
    static func make(_ resolved: Configuration.Resolved, logger: Logger) -> CollageJob {
        make(resolved.configuration, perFolder: resolved.perFolder, watchEvery: resolved.watchEvery, logger: logger)
    }

    /// One collage (or its sheets), one per folder, or either watched: a
    /// first pass, then one every `watchEvery` seconds that redoes only
    /// what changed.
    static func make(_ configuration: CollageConfiguration, perFolder: Bool, watchEvery interval: Double?,
                            logger: Logger) -> CollageJob {
        if configuration.diff != nil {
            let diff = diffConfiguration(configuration), instrumentation = RunInstrumentation()
            let run = CollageRun(configuration: diff, source: DiffSheets(configuration: diff, instrumentation: instrumentation),
                                 instrumentation: instrumentation, logger: logger)
            let page = configuration.htmlPage.map { PageFinishing(page: $0, cells: { DiffCell.split($0, $1) }) }
            return JobRun(.single, passes: SinglePass(run), finishing: page)
        }
        if configuration.film != nil {
            // A run of each video's sheet; the page, of them all.
            return JobRun(.groups, passes: FilmPasses(configuration, logger: logger),
                          finishing: configuration.htmlPage.map { PageFinishing(page: $0) })
        }
        // One checker for the whole job: a duplicate across folders or passes is found too.
        let flagger = Flagger(kinds: configuration.flags)
        let collage: @Sendable (CollageConfiguration) -> CollageJob = {
            CollageRun(configuration: $0, flagger: flagger, logger: logger)
        }
        if let plan = configuration.planOutput {
            // Headers only; every decision goes to the plan.
            var planning = configuration
            (planning.dryRun, planning.htmlPage) = (true, nil)
            planning.headerReadAhead = HeaderPass.depth(jobs: configuration.jobs)
            let passes: any PassSource = if perFolder { FolderPasses(planning, makeRun: collage) }
                else if let groupBy = planning.groupBy { GroupPasses(planning, groupBy: groupBy, makeRun: collage) }
                else { SinglePass(collage(planning)) }
            return JobRun(perFolder ? .folders : planning.groupBy != nil ? .groups : .single, passes: passes,
                          finishing: PlanFinishing(path: plan, configuration: planning, perFolder: perFolder))
        }
        if let plan = configuration.fromPlan {
            // One shard of the plan (all of it without --shard); the first
            // writes the page of the whole job, from the plan.
            var part = configuration
            let page = (configuration.shard?.index ?? 0) == 0 ? configuration.htmlPage : nil
            let passes: any PassSource
            if perFolder || configuration.groupBy != nil {
                passes = PlannedFolderPasses(part, plan: plan, makeRun: collage)
            } else {
                part.shard = configuration.shard ?? Shard(index: 0, count: 1)
                passes = SinglePass(collage(part))
            }
            return JobRun(perFolder ? .folders : configuration.groupBy != nil ? .groups : .single, passes: passes,
                          finishing: page.map { PlanPageFinishing(page: $0, plan: plan) },
                          failOnFlag: configuration.failOnFlag)
        }
        // One pass over the inputs, one per folder, or one per group of photos.
        let kind: JobMachine.Kind = perFolder ? .folders : configuration.groupBy != nil ? .groups : .single
        let makePasses: @Sendable (CollageConfiguration) -> any PassSource = { configuration in
            switch (kind, configuration.groupBy) {
            case (.folders, _): FolderPasses(configuration, makeRun: collage)
            case (.groups, let groupBy?): GroupPasses(configuration, groupBy: groupBy, makeRun: collage)
            default: SinglePass(collage(configuration))
            }
        }
        guard let interval else {
            return JobRun(kind, passes: makePasses(configuration),
                          finishing: configuration.htmlPage.map { PageFinishing(page: $0) },
                          failOnFlag: configuration.failOnFlag)
        }
        return JobRun(.watch, passes: WatchPasses(interval: interval) { first in
            var pass = configuration
            pass.recordState = true
            if !first { pass.skipUnchanged = true }
            return kind == .single ? collage(pass) : JobRun(kind, passes: makePasses(pass))
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
