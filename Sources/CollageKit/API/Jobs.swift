import Logging

/// The kinds of run the command line makes, each a `JobRun` (a `JobMachine`
/// driving passes) over the same core, `CollageRun` (a `RunMachine` driving
/// a `SheetSource`'s sheets to disk). A new kind of run is a `PassSource`
/// (where its passes come from, if it has several) or a `SheetSource`
/// (where a pass's sheets come from) in a folder of its own (Kinds/),
/// named among `ResolvedRun.Kind` with the settings it decides (Resolve/),
/// and wired here by one case of `make`, which decides no setting.
enum Jobs {
    /// The job a resolved `Configuration` asks for.
    static func make(_ resolved: Configuration.Resolved, logger: Logger) -> CollageJob {
        make(resolved.run, logger: logger)
    }

    /// One collage (or its sheets), one per folder, or one per group, a
    /// diff, a film's sheets, a plan or a run from one; the plain ones
    /// watched: a first pass, then one every `watchEvery` seconds that
    /// redoes only what changed. Every setting is the resolution's.
    static func make(_ resolved: ResolvedRun, logger: Logger) -> CollageJob {
        let configuration = resolved.configuration
        switch resolved.kind {
        case .diff:
            let instrumentation = RunInstrumentation()
            let run = CollageRun(configuration: configuration,
                                 source: DiffSheets(configuration: configuration, instrumentation: instrumentation),
                                 instrumentation: instrumentation, logger: logger)
            let page = resolved.page.map { PageFinishing(page: $0, cells: { DiffCell.split($0, $1) }) }
            return JobRun(.single, passes: SinglePass(run), finishing: page)
        case .film:
            // A run of each video's sheet; the page, of them all.
            return JobRun(.groups, passes: FilmPasses(configuration, logger: logger),
                          finishing: resolved.page.map { PageFinishing(page: $0) })
        default:
            break
        }
        // One checker for the whole job: a duplicate across folders or passes is found too.
        let flagger = Flagger(kinds: configuration.flags)
        let collage: @Sendable (CollageConfiguration) -> CollageJob = {
            CollageRun(configuration: $0, flagger: flagger, logger: logger)
        }
        // One pass over the inputs, one per folder, or one per group of photos.
        let kind: JobMachine.Kind, makePasses: @Sendable (CollageConfiguration) -> any PassSource
        switch resolved.passes {
        case .single: (kind, makePasses) = (.single, { SinglePass(collage($0)) })
        case .folders: (kind, makePasses) = (.folders, { FolderPasses($0, makeRun: collage) })
        case .groups(let groupBy): (kind, makePasses) = (.groups, { GroupPasses($0, groupBy: groupBy, makeRun: collage) })
        }
        if resolved.kind == .plan, let plan = configuration.planOutput {
            return JobRun(kind, passes: makePasses(configuration),
                          finishing: PlanFinishing(path: plan, configuration: configuration, perFolder: kind == .folders))
        }
        if resolved.kind == .fromPlan, let plan = configuration.fromPlan {
            let passes = kind == .single ? makePasses(configuration)
                : PlannedFolderPasses(configuration, plan: plan, makeRun: collage)
            return JobRun(kind, passes: passes, finishing: resolved.page.map { PlanPageFinishing(page: $0, plan: plan) },
                          failOnFlag: configuration.failOnFlag)
        }
        guard let interval = resolved.watchEvery else {
            return JobRun(kind, passes: makePasses(configuration), finishing: resolved.page.map { PageFinishing(page: $0) },
                          failOnFlag: configuration.failOnFlag)
        }
        return JobRun(.watch, passes: WatchPasses(interval: interval) { first in
            let pass = resolved.watchPass(first: first)
            return kind == .single ? collage(pass) : JobRun(kind, passes: makePasses(pass))
        })
    }
}
