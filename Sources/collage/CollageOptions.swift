import ArgumentParser
import CollageKit

/// The command line's options, with usage errors found in `validate()`.
struct CollageOptions: ParsableArguments {
    static let version = "0.1.0"

    @Argument(help: ArgumentHelp("Files, folders, or - for a list of paths on standard input.",
                                 valueName: "INPUT"),
              completion: .file())
    var inputs: [String]

    // Options whose default the help text says are optionals, so that
    // ArgumentParser does not say it a second time.
    @Option(name: [.short, .customLong("output")], parsing: .unconditional,
            help: ArgumentHelp("Where to write. The extension picks the format: \(CollageProcess.outputExtensions). "
                               + "With --sheets, {n} is replaced by the sheet number (0001), or -0001 is added before the extension; "
                               + "a .pdf holds every sheet, a page each "
                               + "(default: collage.jpg).",
                               valueName: "PATH"),
            completion: .file())
    var outputOption: String?
    var output: String { outputOption ?? "collage.jpg" }

    @Option(name: .customLong("max"), help: ArgumentHelp("The most images in one collage, the cap "
                                                         + "(default: 6, or the cells of --tile CxR).", valueName: "N"))
    var max: Int?

    /// The cap: --max, or all the cells of a --tile that fixes both sides.
    var maxImages: Int {
        if let max { return max }
        return layoutArguments.tile?.cells ?? 6
    }

    @Flag(help: "Cut the whole input into contact sheets of up to --max images each, instead of stopping at the cap.")
    var sheets = false

    @Option(name: .customLong("size"), help: ArgumentHelp("The canvas size in pixels, e.g. 2400x1600 (default: 1200x800). WIDTHx, such as 1200x, "
                               + "makes each sheet as tall as its content: justified rows about WIDTH/4 high, "
                               + "grid cells of 4:3, the seed grid 3:2; titles, captions and gaps included.",
                               valueName: "WxH"),
            transform: {
                try parsed(CanvasSize($0), "WIDTHxHEIGHT in pixels, each 1 to 65500, such as 1200x800, or WIDTHx "
                           + "(such as 1200x) for sheets as tall as their content; a height alone is not a size")
            })
    var sizeOption: CanvasSize?
    var size: CanvasSize { sizeOption ?? .default }

    @Option(help: ArgumentHelp("Empty cells and transparent pixels: a name (white, black, grey), #rrggbb or r,g,b "
                               + "(default: white).",
                               valueName: "COLOUR"),
            transform: { try parsed(Colour($0), "a colour name (white, black, grey), #rrggbb or r,g,b") })
    var background = Colour.white

    @OptionGroup(title: "Layout and captions") var layoutArguments: LayoutArguments

    @OptionGroup(title: "Print and PDF") var printArguments: PrintArguments

    @Flag(help: "Keep portrait photos (taller than wide once EXIF orientation is applied).")
    var allowPortrait = false

    @Flag(name: [.customShort("0"), .customLong("null")],
          help: "Paths on standard input are separated by NUL bytes (find -print0), not newlines.")
    var nulSeparated = false

    @Flag(help: "Follow symbolic links to folders (loops are detected and reported).")
    var followLinks = false

    @Flag(help: "Standard output is one JSON object per line (NDJSON): events and a final summary.")
    var json = false

    @Option(help: ArgumentHelp("Images decoded at once (default: the number of cores).", valueName: "N"))
    var jobs: Int?

    @Option(name: .customLong("decode-memory"), help: ArgumentHelp("Memory the decodes running at once may hold, by their headers' estimate "
                               + "(giant progressive JPEGs take turns within it); raise it for speed where memory is plentiful "
                               + "(default: \(CollageConfiguration.defaultDecodeMemoryMiB)).",
                               valueName: "MiB"))
    var decodeMemoryOption: Int?
    var decodeMemory: Int { decodeMemoryOption ?? CollageConfiguration.defaultDecodeMemoryMiB }

    @Option(name: .customLong("max-pixels"),
            help: ArgumentHelp("Reject images with more pixels than this, from the header, before decoding "
                               + "(default: 268402689, 16383 squared).", valueName: "N"))
    var maxPixelsOption: Int?
    var maxPixels: Int { maxPixelsOption ?? 268_402_689 }

    @Option(help: ArgumentHelp("Quality of JPEG, WebP and HEIF/AVIF output, 1-100 (default: libvips' 75).",
                               valueName: "Q"))
    var quality: Int?

    @Flag(help: ArgumentHelp("Do nothing if the output was made from the same inputs (paths, sizes, modification times) and options; print its path. Kept in .NAME.collage-state beside the output.",
                             discussion: "Example: collage --skip-unchanged ~/Photos/album -o album.jpg"))
    var skipUnchanged = false

    @Flag(help: "Read headers only and print what would be used and where (OUTPUT<TAB>IMAGE lines, or --json 'planned' events); decode and write nothing.")
    var dryRun = false

    @Flag(help: "Save a collage only with an even number of photos: an odd set loses its last image (an odd --max rounds down).")
    var requireEven = false

    @Flag(help: ArgumentHelp("One collage per folder that holds eligible images; --output is a template with {dir} (the folder's name) or {path} (its path below INPUT, / replaced by _).",
                             discussion: "Example: collage --per-folder ~/Photos -o 'albums/{path}.jpg'"))
    var perFolder = false

    @OptionGroup(title: "Order and groups") var timeArguments: TimeArguments

    @OptionGroup(title: "Camera rolls") var cameraRoll: CameraRollArguments

    @OptionGroup(title: "Sharding") var shardArguments: ShardArguments

    @OptionGroup(title: "Sharding") var planArguments: PlanArguments

    @OptionGroup(title: "For CI and archives") var archiveArguments: ArchiveArguments

    @OptionGroup(title: "Visual diff for CI") var diffArguments: DiffArguments

    @Flag(help: "After the first run, rescan every --interval seconds and redo a collage when its inputs changed; SIGINT or SIGTERM stops.")
    var watch = false

    @Option(name: .customLong("interval"), help: ArgumentHelp("Seconds between rescans with --watch (default: 2).",
                                                              valueName: "SECONDS"))
    var intervalOption: Double?
    var interval: Double { intervalOption ?? 2 }

    @Flag(name: [.short, .long], help: "Only errors on standard error.")
    var quiet = false

    @Flag(name: [.short, .long], help: "Say what happens to every image on standard error, and the notices (the cap, files passed over) that only a terminal is told otherwise.")
    var verbose = false

    func validate() throws {
        guard maxImages >= 1 else { throw ValidationError("--max must be at least 1, not \(maxImages)") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
        guard (16...1_048_576).contains(decodeMemory) else {
            throw ValidationError("--decode-memory must be 16 to 1048576 MiB, not \(decodeMemory)")
        }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
        if let quality, !(1...100).contains(quality) {
            throw ValidationError("--quality must be 1 to 100, not \(quality)")
        }
        if requireEven && maxImages < 2 { throw ValidationError("--require-even needs --max 2 or more") }
        if skipUnchanged && inputs.contains("-") {
            throw ValidationError("--skip-unchanged cannot check a list read from standard input; name the files or folders")
        }
        if perFolder {
            guard FolderOutputs.hasPlaceholder(PathName(output)) else {
                throw ValidationError("--per-folder needs {dir} or {path} in --output, such as -o 'albums/{path}.jpg'")
            }
            guard !inputs.contains("-") else { throw ValidationError("--per-folder takes folders, not -") }
        }
        if watch {
            guard !inputs.contains("-") else { throw ValidationError("--watch rescans files and folders, not -") }
            guard !dryRun else { throw ValidationError("--watch and --dry-run cannot be used together") }
        }
        guard interval >= 0.1 && interval <= 86_400 else {
            throw ValidationError("--interval must be 0.1 to 86400 seconds, not \(interval)")
        }
        try archiveArguments.validate(dryRun: dryRun, watch: watch)
        try planArguments.validate(self)
        try timeArguments.validate(self)
        try diffArguments.validate(perFolder: perFolder, watch: watch, dryRun: dryRun)
        if diffArguments.diff != nil, archiveArguments.flag != nil || requireEven {
            throw ValidationError("--diff shows differences, not images: \(requireEven ? "--require-even" : "--flag") does not apply to it")
        }
        if diffArguments.diff != nil, planArguments.plan != nil || planArguments.fromPlan != nil {
            throw ValidationError("--diff compares two trees as they are now: it cannot be planned (--plan, --from-plan)")
        }
        guard !(quiet && verbose) else { throw ValidationError("--quiet and --verbose cannot be used together") }
        guard inputs.filter({ $0 == "-" }).count <= 1 else {
            throw ValidationError("- (standard input) can be given once")
        }
        guard !output.isEmpty else { throw ValidationError("--output needs a path") }
        try printArguments.validate(sizeGiven: sizeOption != nil)
        let naming = OutputNaming(path: PathName(output), sheets: sheets)
        guard let suffix = naming.saverSuffix else {
            throw ValidationError("cannot write '\(output)': the extension must be one of \(CollageProcess.outputExtensions)")
        }
        var configuration = CollageConfiguration(inputs: [])
        try apply(to: &configuration)
        try PrintArguments.validatePDF(output: output, sheets: sheets, shard: configuration.shard,
                                       diff: diffArguments.diff != nil)
        if let problem = configuration.layoutProblem { throw ValidationError(problem) }
        if suffix == ".webp", Swift.max(size.width, size.height ?? 0) > 16383 {
            throw ValidationError("WebP images are at most 16383 pixels a side; --size \(size.width)x\(size.height.map(String.init) ?? "") is larger")
        }
    }

    /// The options' part of a run's configuration; the inputs and the output
    /// come from the raw arguments (bytes).
    func apply(to configuration: inout CollageConfiguration) throws {
        configuration.nulSeparated = nulSeparated
        configuration.followLinks = followLinks
        configuration.allowPortrait = allowPortrait
        configuration.maxImages = maxImages
        configuration.sheets = sheets
        configuration.canvasWidth = size.width
        configuration.canvasHeight = size.height ?? CanvasSize.nominalHeight(width: size.width)
        configuration.naturalHeight = size.height == nil
        configuration.backgroundColour = background
        configuration.jobs = jobs ?? CollageConfiguration.defaultJobs
        configuration.maxPixels = maxPixels
        configuration.decodeMemoryBudget = decodeMemory << 20
        configuration.quality = quality
        configuration.requireEven = requireEven
        configuration.dryRun = dryRun
        configuration.skipUnchanged = skipUnchanged
        configuration.shard = try shardArguments.resolve(sheets: sheets, perFolder: perFolder,
                                                         grouped: timeArguments.groupBy != nil)
        try layoutArguments.apply(to: &configuration)
        printArguments.apply(to: &configuration)
        try archiveArguments.apply(to: &configuration)
        try diffArguments.apply(to: &configuration, baseline: nil)
        try cameraRoll.apply(to: &configuration)
        try timeArguments.apply(to: &configuration)
        planArguments.apply(to: &configuration)
    }
}

extension CollageOptions {
    /// Whether the run may make many collages (sheets, one per folder, a
    /// watch, a shard of a job): worth restarting for huge pages.
    var makesManyCollages: Bool {
        (sheets || perFolder || watch || shardArguments.shard != nil || timeArguments.groupBy != nil)
            && planArguments.plan == nil
    }
}

/// An option's value parsed once, where ArgumentParser reads it; the line
/// it prints for a value that is not one says what is expected.
func parsed<Value>(_ value: Value?, _ expected: String) throws -> Value {
    guard let value else { throw ValidationError("expected \(expected)") }
    return value
}
