import FileFacts
import Vips

/// Why a configuration cannot run: one line, and the status the command
/// line exits with (64 for a usage error; a plan that cannot be read, 66).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status the command line exits with: `usage` (64) unless said otherwise.
    public let status: ExitStatus
    /// The line that says what is wrong, without the program's name.
    public let message: String

    /// A usage error unless `status` says otherwise.
    public init(_ message: String, status: ExitStatus = .usage) {
        (self.status, self.message) = (status, message)
    }

    public var description: String { message }
}

extension Configuration {
    /// Every usage error that needs nothing but the configuration itself:
    /// values out of range, options that cannot go together, templates,
    /// an output that cannot be written. No file is read (`--shard auto`,
    /// a plan and the files of `--rules`, `--approve-from` and
    /// `--exclude-from` are read and checked by `resolve()`, which makes
    /// these checks too, once).
    public func validate() throws(ConfigurationError) {
        // A run from a plan is the plan's configuration and what is given
        // beside it: checked once they are put together (`resolve()`).
        if let fromPlan { return try Self.checkPlanPath(fromPlan) }
        let shard = try checkOptions(environment: nil)
        try checkResolved(collageConfiguration(DiffFiles(), shard: shard), shard: shard)
    }

    /// The checks of the options themselves, each made here once, in the
    /// order they are told. Returns `--shard` parsed: `auto` read from the
    /// batch system's `environment`, or nil with none (`validate()`).
    func checkOptions(environment: [String: String]?) throws(ConfigurationError) -> Shard? {
        func usage(_ message: String) -> ConfigurationError { ConfigurationError(message) }
        let standardInputs = inputs.filter { $0 == .standardInput }.count
        if inputs.isEmpty && fromPlan == nil {
            throw usage("no INPUT: name files or folders, or - to read paths from standard input")
        }
        guard cap >= 1 else { throw usage("--max must be at least 1, not \(cap)") }
        if let jobs, jobs < 1 { throw usage("--jobs must be at least 1, not \(jobs)") }
        let decodeMemory = decodeMemory ?? CollageConfiguration.defaultDecodeMemoryMiB
        guard (16...1_048_576).contains(decodeMemory) else {
            throw usage("--decode-memory must be 16 to 1048576 MiB, not \(decodeMemory)")
        }
        if let maxPixels, maxPixels < 1 { throw usage("--max-pixels must be at least 1") }
        if let quality, !(1...100).contains(quality) { throw usage("--quality must be 1 to 100, not \(quality)") }
        if let minRating, !(-1...5).contains(minRating) { throw usage("--min-rating must be -1 to 5, not \(minRating)") }
        if requireEven && cap < 2 { throw usage("--require-even needs --max 2 or more") }
        if skipUnchanged && standardInputs > 0 {
            throw usage("--skip-unchanged cannot check a list read from standard input; name the files or folders")
        }
        if perFolder {
            guard FolderOutputs.hasPlaceholder(outputPath) else {
                throw usage("--per-folder needs {dir} or {path} in --output, such as -o 'albums/{path}.jpg'")
            }
            guard standardInputs == 0 else { throw usage("--per-folder takes folders, not -") }
        }
        if watch {
            guard standardInputs == 0 else { throw usage("--watch rescans files and folders, not -") }
            guard !dryRun else { throw usage("--watch and --dry-run cannot be used together") }
        }
        let interval = interval ?? 2
        guard interval >= 0.1 && interval <= 86_400 else {
            throw usage("--interval must be 0.1 to 86400 seconds, not \(interval)")
        }
        try validateLayout()
        try validateScan()
        try validateArchive()
        try validatePlan()
        try validateTime()
        try validatePick()
        try validateDiff()
        try validateFilm()
        guard standardInputs <= 1 else { throw usage("- (standard input) can be given once") }
        guard !outputPath.bytes.isEmpty else { throw usage("--output needs a path") }
        try validatePrint()
        let naming = OutputNaming(path: outputPath, sheets: sheets)
        guard naming.saverSuffix != nil else {
            throw usage("cannot write '\(outputPath)': the extension must be one of \(ImageFormat.outputExtensionList), pdf")
        }
        guard let shard else { return nil }
        guard sheets || perFolder || groupBy != nil || frames != nil || every != nil else {
            throw usage("--shard cuts a --sheets, --per-folder, --group-by or --frames job into parts; add one of them")
        }
        // `auto` is read from the environment when the configuration is resolved.
        if shard == "auto", environment == nil { return nil }
        switch Shard.parse(shard, environment: environment ?? [:]) {
        case .success(let value): return value
        case .failure(let error): throw usage(error.description)
        }
    }

    /// What is checked on the run's configuration: a PDF's limits (with
    /// `shard` as far as it is known), the layout on its canvas, WebP's size.
    func checkResolved(_ configuration: CollageConfiguration, shard: Shard?) throws(ConfigurationError) {
        let naming = OutputNaming(path: outputPath, sheets: sheets)
        try validatePDF(naming, shard: shard)
        if let problem = configuration.layoutProblem { throw ConfigurationError(problem) }
        let size = canvasSize
        if naming.saverSuffix == ".webp", Swift.max(size.width, size.height ?? 0) > 16383 {
            throw ConfigurationError("WebP images are at most 16383 pixels a side; --size \(size.optionText) is larger")
        }
    }

    private func validateLayout() throws(ConfigurationError) {
        guard Layouts.names.contains(layoutName) else {
            throw ConfigurationError("--layout takes \(Layouts.names.joined(separator: ", ")); not '\(layoutName)'")
        }
        if tile != nil, layoutName != "grid" && layoutName != "auto" {
            throw ConfigurationError("--tile sets the columns and rows of --layout grid, not of \(layoutName)")
        }
        if let gap, gap < 0 { throw ConfigurationError("--gap must be 0 or more pixels, not \(gap)") }
        _ = try templates()
    }

    /// `--raw` and `--exclude` (the patterns of `--exclude-from` are read by `resolve()`).
    private func validateScan() throws(ConfigurationError) {
        _ = try rawMode()
        _ = try exclusions()
    }

    private func validateArchive() throws(ConfigurationError) {
        _ = try flagKinds()
        if failOnFlag && flag == nil { throw ConfigurationError("--fail-on-flag needs --flag LIST (blank, duplicate)") }
        if dryRun && html != nil && diff == nil {  // a diff's review page needs no sheet
            throw ConfigurationError("--dry-run writes nothing, so --html has no sheets to show; drop one of them")
        }
        if dryRun && flag != nil { throw ConfigurationError("--dry-run decodes no pixels, so --flag cannot look at them") }
        if watch && (html != nil || failOnFlag) {
            throw ConfigurationError("--watch never ends, so --html and --fail-on-flag, which act at the end, cannot be used with it")
        }
        if html?.bytes.isEmpty == true { throw ConfigurationError("--html needs a path") }
    }

    private func validateTime() throws(ConfigurationError) {
        _ = try order()
        let grouping = try grouping()
        let ordered = sort != nil || reverse || grouping != nil
        let named = sort != nil ? "--sort" : reverse ? "--reverse" : "--group-by"
        if ordered, diff != nil {
            throw ConfigurationError("--diff compares each image with its baseline: \(named) does not apply to it")
        }
        if grouping != nil, perFolder {
            throw ConfigurationError("--group-by and --per-folder cannot be used together: one cuts by time, the other by folder")
        }
        guard grouping == nil else { return }
        for (name, source) in [("--label", label), ("--title", title)] {
            if let source, (try? Template(source, fields: Template.labelFields + Template.titleFields))?.uses("group") == true {
                throw ConfigurationError("{group} in \(name) is the name of a --group-by group; add --group-by")
            }
        }
        if GroupOutputs.hasPlaceholder(outputPath) {
            throw ConfigurationError("{group} in --output is the name of a --group-by group; add --group-by")
        }
    }

    private func validatePick() throws(ConfigurationError) {
        guard pick else { return }
        let conflicts: [(Bool, String)] = [
            (diff != nil, "--diff (it compares every pair)"), (frames != nil || every != nil, "--frames or --every"),
            (sort != nil && sort != "taken", "--sort \(sort ?? "") (its moments are placed in time order)"),
            (reverse, "--reverse (its moments are placed in time order)"),
        ]
        if let conflict = conflicts.first(where: \.0) { throw ConfigurationError("--pick cannot be used with \(conflict.1)") }
    }

    private func validateDiff() throws(ConfigurationError) {
        guard let diff else {
            let used = [("--threshold", threshold != nil), ("--count-aa", countAntiAliased), ("--ignore", !ignore.isEmpty),
                        ("--tolerance", tolerance != nil), ("--junit", junit != nil),
                        ("--fail-on", failOn != nil), ("--diff-images", diffImages != nil),
                        ("--markdown", markdown != nil), ("--approve", approve != nil),
                        ("--approve-from", approveFrom != nil), ("--alternative", alternative), ("--rules", rules != nil)].filter(\.1).map(\.0)
            if let first = used.first { throw ConfigurationError("\(first) is an option of --diff BASELINE") }
            return
        }
        if diff.bytes.isEmpty { throw ConfigurationError("--diff needs the folder of the images to compare with") }
        if let threshold, !(0...1).contains(threshold) {
            throw ConfigurationError("--threshold must be 0 to 1, not \(threshold)")
        }
        _ = try rectangles()
        if let tolerance, Tolerance(tolerance) == nil {
            throw ConfigurationError("--tolerance takes a number of pixels (12) or a percentage (0.5%), not '\(tolerance)'")
        }
        if junit?.bytes.isEmpty == true { throw ConfigurationError("--junit needs a path") }
        _ = try failingStatuses()
        if diffImages?.bytes.isEmpty == true { throw ConfigurationError("--diff-images needs a folder") }
        if markdown?.bytes.isEmpty == true { throw ConfigurationError("--markdown needs a path") }
        for (name, used) in [("--per-folder", perFolder), ("--watch", watch)] where used {
            throw ConfigurationError("--diff and \(name) cannot be used together")
        }
        if rules?.bytes.isEmpty == true { throw ConfigurationError("--rules needs a file") }
        if approve?.contains(where: \.bytes.isEmpty) == true { throw ConfigurationError("--approve: an empty path names no image") }
        if approve != nil, dryRun { throw ConfigurationError("--approve and --dry-run cannot be used together") }
        if approveFrom?.bytes.isEmpty == true { throw ConfigurationError("--approve-from needs the decisions file") }
        if approveFrom != nil, approve != nil {
            throw ConfigurationError("--approve and --approve-from cannot be used together: the decisions name the pairs")
        }
        if approveFrom != nil, dryRun { throw ConfigurationError("--approve-from and --dry-run cannot be used together") }
        if alternative, approve == nil, approveFrom == nil {
            throw ConfigurationError("--alternative keeps the old baseline when approving: add --approve")
        }
        if flag != nil || requireEven {
            throw ConfigurationError("--diff shows differences, not images: \(requireEven ? "--require-even" : "--flag") does not apply to it")
        }
        if plan != nil || fromPlan != nil {
            throw ConfigurationError("--diff compares two trees as they are now: it cannot be planned (--plan, --from-plan)")
        }
        if minRating != nil { throw ConfigurationError("--diff compares every image with its baseline: --min-rating does not apply to it") }
    }

    private func validatePrint() throws(ConfigurationError) {
        if let dpi, !(10...2400).contains(dpi) { throw ConfigurationError("--dpi must be 10 to 2400, not \(dpi)") }
        if page != nil, size != nil {
            throw ConfigurationError("--page and --size cannot be used together: the page makes the canvas")
        }
        if let page {
            let (width, height) = page.pixels(at: dpi ?? 300)
            guard width <= 65_500, height <= 65_500 else {
                throw ConfigurationError("--page \(page) at \(dpi ?? 300) dpi is \(width)x\(height) pixels, more than 65500 a side; lower --dpi")
            }
        }
    }

    /// What a PDF cannot be written with.
    private func validatePDF(_ naming: OutputNaming, shard: Shard?) throws(ConfigurationError) {
        guard naming.isDocument else { return }
        if FolderOutputs.contains(outputPath.bytes, Array("{n}".utf8)) {
            throw ConfigurationError("a PDF holds every sheet of the run, a page each: drop {n} from --output '\(outputPath)'")
        }
        if let shard, shard.count > 1 {
            throw ConfigurationError("--shard \(shard) cannot write one PDF from \(shard.count) runs: write the shards' sheets "
                                     + "as images (-o 'sheets/{n}.jpg') and make the PDF in one run, or run without --shard")
        }
        if diff != nil {
            throw ConfigurationError("--diff writes its report as images, not a PDF: use -o 'diff-{n}.png' (with --sheets)")
        }
    }
}
