extension Configuration {
    /// A configuration made ready to run: what was asked, and what will run,
    /// decided once (`resolve()`). `Jobs.make(_:logger:)` makes the job from
    /// it; the job, its passes and its runs only read it.
    public struct Resolved: Sendable {
        /// What was asked (with `--from-plan`, the plan's configuration and
        /// the options given beside it).
        public let request: Configuration
        /// The run's configuration: every option in its place, defaults
        /// included (what the command line reports from).
        public let configuration: CollageConfiguration
        /// What runs: the kind of run, and the configuration its runs start
        /// from, the kind's own settings decided on `configuration`.
        let run: ResolvedRun
        /// `--per-folder`: one collage per folder.
        public var perFolder: Bool { request.perFolder }
        /// `--watch`: seconds between rescans, or nil.
        public var watchEvery: Double? { run.watchEvery }

        init(request: Configuration, configuration: CollageConfiguration) {
            (self.request, self.configuration) = (request, configuration)
            run = ResolvedRun(configuration, perFolder: request.perFolder,
                              watchEvery: request.watch ? request.interval ?? 2 : nil)
        }
    }
}

/// What a job runs, from its configuration with every option in its place:
/// which kind of run it is, how its passes go, the configuration each of
/// its runs starts from with the kind's own defaults and derived settings
/// (a diff's layout and captions, a plan's header pass, a film's cells, a
/// run from a plan's shard), and the page written at the end. A pure
/// function, tested as a table (`ResolutionTableTests`); nothing after it
/// changes a setting, and what differs from one pass to the next (a
/// folder's, a group's, a video's, a tick of `--watch`) is decided by the
/// functions beside it (`CollageConfiguration+Passes`).
struct ResolvedRun: Sendable {
    /// The kinds of run.
    enum Kind: String, Sendable, CaseIterable {
        /// One collage of the inputs; `sheets`, all of them cut into sheets;
        /// `folders`, one per folder; `groups`, one per group of photos;
        /// `pick`, the moments chosen first (one collage, or sheets).
        case collage, sheets, folders, groups, pick
        /// `--diff`, `--frames`/`--every`, `--plan`, `--from-plan`.
        case diff, film, plan, fromPlan
    }

    /// How the job's runs go: one, one per folder, one per group.
    enum Passes: Sendable, Equatable {
        case single, folders, groups(GroupBy)
    }

    let kind: Kind
    let passes: Passes
    /// What each run of the job starts from.
    let configuration: CollageConfiguration
    /// `--html`: the page the job writes once its runs have ended (a run
    /// from a plan: its first shard's; a plan: none).
    let page: PathName?
    /// `--watch`: seconds between passes, or nil.
    let watchEvery: Double?

    init(_ asked: CollageConfiguration, perFolder: Bool, watchEvery: Double?) {
        passes = perFolder ? .folders : asked.groupBy.map { .groups($0) } ?? .single
        var configuration = asked
        var page = asked.htmlPage
        if asked.diff != nil {
            kind = .diff
            configuration = Self.diff(asked)
        } else if asked.film != nil {
            kind = .film
            // Cells of the film's shape leave room below for their captions.
            configuration.layoutOptions.aimsBelowCaptions = true
        } else if asked.planOutput != nil {
            kind = .plan
            // Headers only; every decision goes to the plan.
            (configuration.dryRun, configuration.htmlPage, page) = (true, nil, nil)
            configuration.headerReadAhead = HeaderPass.depth(jobs: asked.jobs)
        } else if asked.fromPlan != nil {
            kind = .fromPlan
            // One shard of the plan (all of it without --shard); the first
            // writes the page of the whole job, from the plan.
            if (asked.shard?.index ?? 0) != 0 { page = nil }
            if passes == .single { configuration.shard = asked.shard ?? Shard(index: 0, count: 1) }
        } else {
            kind = perFolder ? .folders : asked.groupBy != nil ? .groups : asked.pick ? .pick
                : asked.sheets ? .sheets : .collage
        }
        self.configuration = configuration
        self.page = page
        self.watchEvery = watchEvery
    }

    /// `--diff`: screenshots of any shape are compared; each cell is
    /// captioned with its path and how much changed unless `--label` says
    /// otherwise; the cells, three pictures wide, are laid out in justified
    /// rows unless `--layout` or `--tile` says otherwise (the grids' square
    /// cells would leave them a strip).
    static func diff(_ asked: CollageConfiguration) -> CollageConfiguration {
        var diff = asked
        diff.allowPortrait = true
        if diff.layoutName == "auto" { diff.layoutName = "justified" }
        if diff.captions.label == nil {
            diff.captions.label = try? Template("{path} · {status} · {pixels} px ({percent})", fields: Template.labelFields)
        }
        return diff
    }

    /// `--watch`: the first pass keeps the state beside each output (the
    /// later ones compare against it); each later pass skips an output
    /// whose inputs and options are unchanged.
    func watchPass(first: Bool) -> CollageConfiguration {
        var pass = configuration
        pass.recordState = true
        if !first { pass.skipUnchanged = true }
        return pass
    }
}
