/// What a configuration names that `resolve()` reads and `validate()`
/// does not: `--approve-from`'s decisions and `--rules`.
struct DiffFiles {
    var decisions: ApprovalDecisions?
    var rules: (rules: [DiffRule], text: [UInt8])?
}

extension Configuration {
    /// Checks the configuration, reads what it names (a plan, `--rules`,
    /// `--approve-from` and `--exclude-from` files, `--shard auto`'s
    /// `environment`), and resolves what will run, defaults included: each
    /// check made once, each file read once. Nothing of an INPUT is read.
    public func resolve(environment: [String: String] = [:]) throws(ConfigurationError) -> Resolved {
        guard let fromPlan else { return try resolved(environment: environment, fromPlan: nil) }
        try Self.checkPlanPath(fromPlan)
        // The plan's configuration and the options given beside it, checked put together.
        var planned = try Self.planned(fromPlan, given: self)
        planned.fromPlan = nil
        return try planned.resolved(environment: environment, fromPlan: fromPlan)
    }

    /// `resolve()` of a configuration, or of a plan's (`fromPlan`): the
    /// options checked, the files read, the run's configuration made and
    /// checked, in the order the command line says what is wrong.
    private func resolved(environment: [String: String], fromPlan: PathName?) throws(ConfigurationError) -> Resolved {
        let shard = try checkOptions(environment: environment)
        var request = self
        request.fromPlan = fromPlan
        let files = try request.diffFiles()
        var configuration = try request.collageConfiguration(files, shard: shard)
        try request.checkResolved(configuration, shard: shard)
        configuration.scan.exclusions += try request.excludedByFiles()
        return Resolved(request: request, configuration: configuration)
    }

    /// `--approve-from` and `--rules` of `--diff`, read.
    private func diffFiles() throws(ConfigurationError) -> DiffFiles {
        guard diff != nil else { return DiffFiles() }
        var files = DiffFiles()
        if let approveFrom { files.decisions = try Self.decisions(approveFrom) }
        if let rules { files.rules = try Self.diffRules(rules) }
        return files
    }

    /// The patterns of the `--exclude-from` files, in order.
    private func excludedByFiles() throws(ConfigurationError) -> [ExcludePattern] {
        var patterns: [ExcludePattern] = []
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
        return patterns
    }

    /// The run's configuration: every option in its place, defaults
    /// included, from the options and the `files` read (none for
    /// `validate()`); the `--exclude-from` patterns are added once it is checked.
    func collageConfiguration(_ files: DiffFiles, shard: Shard?) throws(ConfigurationError) -> CollageConfiguration {
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
            if let approveFrom, let decisions = files.decisions {
                (settings.decisions, settings.decisionsFile) = (decisions, approveFrom)
                settings.approve = decisions.decisions.map(\.path)
            }
            if let rules = files.rules { (settings.rules, settings.rulesText) = rules }
            if settings.approve != nil {  // nothing is written but the baseline
                (settings.junit, settings.diffImages, settings.markdown, settings.html) = (nil, nil, nil, nil)
                configuration.dryRun = true
                configuration.htmlPage = nil
            }
            configuration.diff = settings
        }
        resolveFilm(&configuration)
        // Camera rolls.
        var rules = ScanRules()
        rules.video = video || frames != nil || every != nil
        rules.raw = try rawMode()
        rules.exclusions = try exclusions()
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
