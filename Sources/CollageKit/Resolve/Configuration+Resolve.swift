import FoundationEssentials

extension Configuration {
    /// A configuration made ready to run: the run's `CollageConfiguration`,
    /// and the kind of job it is. `Jobs.make(_:logger:)` makes the job.
    public struct Resolved: Sendable {
        /// What was asked (with `--from-plan`, the plan's configuration and
        /// the options given beside it).
        public let request: Configuration
        /// The run's configuration.
        public let configuration: CollageConfiguration
        /// `--per-folder`: one collage per folder.
        public var perFolder: Bool { request.perFolder }
        /// `--watch`: seconds between rescans, or nil.
        public var watchEvery: Double? { request.watch ? request.interval ?? 2 : nil }
    }

    /// Validates, reads what the configuration names (a plan, `--exclude-from`
    /// files, `--shard auto`'s `environment`), and makes the run's
    /// configuration. Nothing of an INPUT is read.
    public func resolve(environment: [String: String] = [:]) throws(ConfigurationError) -> Resolved {
        if let fromPlan {
            if fromPlan.bytes.isEmpty { throw ConfigurationError("--from-plan needs the path of a plan") }
            var planned = try Self.planned(fromPlan, given: self)
            planned.fromPlan = nil
            try planned.validate()
            planned.fromPlan = fromPlan
            return try planned.resolveChecked(environment: environment)
        }
        try validate()
        return try resolveChecked(environment: environment)
    }

    /// `resolve()` once the configuration is valid.
    private func resolveChecked(environment: [String: String]) throws(ConfigurationError) -> Resolved {
        let shard = try resolvedShard(environment)
        if let shard, shard.count > 1, OutputNaming(path: outputPath, sheets: sheets).isDocument {
            throw Self.onePDF(shard)
        }
        var patterns = try exclusions()
        for file in excludeFrom {
            let name = String(decoding: file.bytes, as: UTF8.self)
            let bytes: [UInt8]
            switch FileContents.read(file, limit: 16 << 20) {
            case .success(let contents): bytes = contents
            case .failure(let failure): throw ConfigurationError("--exclude-from: cannot read '\(name)': \(failure)")
            }
            do { patterns += try ScanRules.patterns(fromFile: bytes) } catch {
                throw ConfigurationError("--exclude-from '\(name)' \(error)")
            }
        }
        return Resolved(request: self, configuration: try collageConfiguration(shard: shard, exclusions: patterns))
    }

    /// `--shard`, read with the batch system's `environment` for `auto`.
    private func resolvedShard(_ environment: [String: String]) throws(ConfigurationError) -> Shard? {
        guard let shard else { return nil }
        guard sheets || perFolder || groupBy != nil || frames != nil || every != nil else {
            throw ConfigurationError("--shard cuts a --sheets, --per-folder, --group-by or --frames job into parts; add one of them")
        }
        switch Shard.parse(shard, environment: environment) {
        case .success(let value): return value
        case .failure(let error): throw ConfigurationError(error.description)
        }
    }

    /// The run's configuration: every option in its place.
    func collageConfiguration(shard: Shard?, exclusions: [ExcludePattern]) throws(ConfigurationError)
        -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: inputs)
        configuration.output = outputPath
        configuration.nulSeparated = nulSeparated
        configuration.followLinks = followLinks
        configuration.allowPortrait = allowPortrait
        configuration.minRating = minRating
        configuration.maxImages = cap
        configuration.sheets = sheets
        let size = canvasSize
        configuration.canvasWidth = size.width
        configuration.canvasHeight = size.height ?? CanvasSize.nominalHeight(width: size.width)
        configuration.naturalHeight = size.height == nil
        configuration.backgroundColour = background ?? .white
        configuration.jobs = jobs ?? CollageConfiguration.defaultJobs
        configuration.maxPixels = maxPixels ?? 268_402_689
        configuration.decodeMemoryBudget = (decodeMemory ?? CollageConfiguration.defaultDecodeMemoryMiB) << 20
        configuration.quality = quality
        configuration.requireEven = requireEven
        configuration.dryRun = dryRun
        configuration.skipUnchanged = skipUnchanged
        configuration.shard = shard
        // Layout and captions.
        configuration.layoutName = layoutName == "auto" && tile != nil ? "grid" : layoutName
        configuration.layoutOptions.gap = gap ?? 0
        // A film's frames are shown whole unless --fit cover says otherwise.
        configuration.layoutOptions.fit = fit ?? (frames != nil || every != nil ? .contain : .cover)
        configuration.crop = crop ?? .centre
        configuration.layoutOptions.columns = tile?.columns
        configuration.layoutOptions.rows = tile?.rows
        (configuration.captions.label, configuration.captions.title) = try templates()
        configuration.font = font
        // Print: with a page, the canvas is the page at the resolution, and text sizes are in points.
        configuration.print.page = page
        configuration.print.dpi = dpi
        configuration.print.margin = margin
        if let page {
            let resolution = configuration.print.resolution
            (configuration.canvasWidth, configuration.canvasHeight) = page.pixels(at: resolution)
            configuration.naturalHeight = false
            configuration.captions.pixelsPerPoint = Double(resolution) / 72
        }
        // For CI and archives.
        configuration.flags = try flagKinds() ?? []
        configuration.failOnFlag = failOnFlag
        configuration.htmlPage = html
        if let diff {
            var settings = DiffSettings(baseline: diff)
            if let threshold { settings.threshold = threshold }
            settings.countAntiAliased = countAntiAliased
            for rect in try rectangles() { settings.ignore(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }
            if let tolerance, let value = Tolerance(tolerance) { settings.tolerance = value }
            settings.junit = junit
            if let statuses = try failingStatuses() { settings.failOn = statuses }
            (settings.diffImages, settings.markdown, settings.html) = (diffImages, markdown, html)
            if let html, diffImages == nil { settings.diffImages = DiffSettings.reviewPictures(beside: html) }
            configuration.htmlPage = nil  // the review page is the diff's own
            (settings.approve, settings.alternative) = (approve, alternative)
            settings.inputs = inputs.map { if case .path(let path) = $0 { path.description } else { "-" } }
            if let approveFrom {
                let decisions = try Self.decisions(approveFrom)
                (settings.decisions, settings.decisionsFile) = (decisions, approveFrom)
                settings.approve = decisions.decisions.map(\.path)
            }
            if let rules { (settings.rules, settings.rulesText) = try Self.diffRules(rules) }
            if settings.approve != nil {  // nothing is written but the baseline
                (settings.junit, settings.diffImages, settings.markdown, settings.html) = (nil, nil, nil, nil)
                configuration.dryRun = true
                configuration.htmlPage = nil
            }
            configuration.diff = settings
        }
        if frames != nil || every != nil {
            // Sheets of each video: a grid of its frames, timed, under its header.
            configuration.film = FilmSettings(count: frames ?? max ?? tile?.cells ?? FilmSettings.everyTiles, scenes: scenes,
                                              every: every, vtt: vtt)
            configuration.maxImages = configuration.film!.count
            configuration.sheets = every != nil
            if layoutName == "auto" { configuration.layoutName = "grid" }
            if label == nil { configuration.captions.label = FilmSettings.defaultLabel }
            if title == nil { configuration.captions.title = FilmSettings.defaultTitle }
        }
        // Camera rolls.
        var rules = ScanRules()
        rules.video = video || frames != nil || every != nil
        rules.raw = try rawMode()
        rules.exclusions = exclusions
        configuration.scan = rules
        // Order and groups.
        configuration.sort = try order()
        configuration.reverse = reverse
        configuration.groupBy = try grouping()
        configuration.pick = pick
        if pick { configuration.captions.stacks = StackSizes() }
        // One collage's N (the seed's six, --max) is a cap; --sheets shows every moment, N a sheet.
        if pick { configuration.pickCap = sheets ? nil : configuration.effectiveCap }
        // Plans.
        configuration.planOutput = plan
        if plan != nil { configuration.planned = plannedPart }
        configuration.fromPlan = fromPlan
        return configuration
    }

    /// What a plan records: all but what changes only how a run goes (the
    /// page, `--html`, stays: the job's first shard writes it).
    var plannedPart: Configuration {
        var planned = self
        (planned.skipUnchanged, planned.shard, planned.jobs, planned.decodeMemory) = (false, nil, nil, nil)
        (planned.plan, planned.fromPlan) = (nil, nil)
        return planned
    }

    /// `--from-plan FILE`: the plan's configuration, with the options given
    /// beside it (only those that do not change the plan).
    static func planned(_ file: PathName, given: Configuration) throws(ConfigurationError) -> Configuration {
        let header: PlanLine
        switch PlanFile.check(file) {
        case .success(let checked): header = checked
        case .failure(let problem): throw ConfigurationError(problem.message, status: problem.status)
        }
        guard var planned = header.configuration else {
            throw ConfigurationError("cannot use the plan \(file): its header is damaged", status: .noInput)
        }
        let changed = given.changedKeys.filter { !runtimeKeys.contains($0) }
        if let first = changed.first {
            throw ConfigurationError("--from-plan takes its inputs and options from the plan; \(option(first)) would change it; "
                                     + "make another plan instead")
        }
        if let directory = header.directory?.path, PlanFile.workingDirectory != directory {
            throw ConfigurationError("the plan was made in \(directory), and its paths are read from there: cd \(directory) first")
        }
        planned.skipUnchanged = given.skipUnchanged
        planned.shard = given.shard
        planned.jobs = given.jobs
        planned.decodeMemory = given.decodeMemory
        planned.html = given.html ?? planned.html
        planned.fromPlan = file
        return planned
    }

    /// The properties that differ from a configuration of no inputs and no options.
    var changedKeys: [CodingKeys] {
        guard let mine = try? fields(), let blank = try? Configuration(inputs: []).fields() else { return [] }
        return CodingKeys.allCases.filter { mine[$0.stringValue] != blank[$0.stringValue] }
    }

    private func fields() throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(self))
    }

    /// `--approve-from FILE` read: the reviewer's decisions; a file that is
    /// not decisions, or that names a path that cannot be below the trees,
    /// is a usage error in one line.
    static func decisions(_ file: PathName) throws(ConfigurationError) -> ApprovalDecisions {
        switch FileContents.read(file, limit: ApprovalDecisions.limit) {
        case .success(let bytes):
            switch ApprovalDecisions.parse(bytes) {
            case .success(let decisions): return decisions
            case .failure(let error):
                throw ConfigurationError("--approve-from '\(file)': \(error.message); nothing was approved")
            }
        case .failure(let failure): throw ConfigurationError("--approve-from: cannot read '\(file)': \(failure)")
        }
    }

    /// `--rules FILE` read: its rules and its bytes; a line that is not a
    /// rule is a usage error naming it.
    static func diffRules(_ file: PathName) throws(ConfigurationError) -> ([DiffRule], [UInt8]) {
        let bytes: [UInt8]
        switch FileContents.read(file, limit: 16 << 20) {
        case .success(let contents): bytes = contents
        case .failure(let failure): throw ConfigurationError("--rules: cannot read '\(file)': \(failure)")
        }
        do {
            return (try DiffRule.rules(fromFile: bytes), bytes)
        } catch {
            throw ConfigurationError("--rules '\(file)' line \(error.line): \(error.message)")
        }
    }
}
