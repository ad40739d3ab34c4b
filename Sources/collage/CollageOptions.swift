import ArgumentParser
import CollageKit
import CollageTerminal

/// The command line's options: words parsed into a `Configuration`, which
/// finds the usage errors itself, once, when the run resolves it.
struct CollageOptions: ParsableArguments {
    static let version = "0.1.0"

    @Argument(help: ArgumentHelp("Files, folders, or - for a list of paths on standard input.",
                                 valueName: "INPUT"),
              completion: .file())
    var inputs: [String] = []

    // Options whose default the help text says are optionals, so that
    // ArgumentParser does not say it a second time.
    @Option(name: [.short, .customLong("output")], parsing: .unconditional,
            help: ArgumentHelp("Where to write. The extension picks the format: \(CollageProcess.outputExtensions). "
                               + "With --sheets, {n} is replaced by the sheet number (0001), or -0001 is added before the extension; "
                               + "a .pdf holds every sheet, a page each "
                               + "(default: collage.jpg).",
                               valueName: "PATH"),
            completion: .file())
    var output: String?

    @Option(name: .customLong("max"), help: ArgumentHelp("The most images in one collage, the cap "
                                                         + "(default: 6, or the cells of --tile CxR).", valueName: "N"))
    var max: Int?

    @Flag(help: "Cut the whole input into contact sheets of up to --max images each, instead of stopping at the cap.")
    var sheets = false

    @Option(name: .customLong("size"), help: ArgumentHelp("The canvas size in pixels, e.g. 2400x1600 (default: 1200x800; a film's sheet 1200x). WIDTHx, such as 1200x, "
                               + "makes each sheet as tall as its content: justified rows about WIDTH/4 high, "
                               + "grid cells of 4:3, the seed grid 3:2; titles, captions and gaps included.",
                               valueName: "WxH"),
            transform: {
                try parsed(CanvasSize($0), "WIDTHxHEIGHT in pixels, each 1 to 65500, such as 1200x800, or WIDTHx "
                           + "(such as 1200x) for sheets as tall as their content; a height alone is not a size")
            })
    var size: CanvasSize?

    @Option(help: ArgumentHelp("Empty cells and transparent pixels: a name (white, black, grey), #rrggbb or r,g,b "
                               + "(default: white).",
                               valueName: "COLOUR"),
            transform: { try parsed(Colour($0), "a colour name (white, black, grey), #rrggbb or r,g,b") })
    var background: Colour?

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
    var decodeMemory: Int?

    @Option(name: .customLong("max-pixels"),
            help: ArgumentHelp("Reject images with more pixels than this, from the header, before decoding "
                               + "(default: 268402689, 16383 squared).", valueName: "N"))
    var maxPixels: Int?

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
    var interval: Double?

    @Flag(name: [.short, .long], help: "Only errors on standard error.")
    var quiet = false

    @Flag(name: [.short, .long], help: "Say what happens to every image on standard error, and the notices (the cap, files passed over) that only a terminal is told otherwise.")
    var verbose = false

    /// The two options only the command line has; every other usage error
    /// is the library's, found once, when the run resolves its `request`.
    func validate() throws {
        guard !(quiet && verbose) else { throw ValidationError("--quiet and --verbose cannot be used together") }
    }

    /// What was asked, as the library takes it; paths and patterns as the
    /// bytes given (see `ArgumentBytes`).
    var request: Configuration {
        var arguments = ArgumentBytes.process
        var request = Configuration(inputs: inputs.map { $0 == "-" ? .standardInput : .path(arguments.input($0)) })
        request.output = output.map { arguments.output($0) }
        (request.max, request.sheets, request.size, request.background) = (max, sheets, size, background)
        (request.allowPortrait, request.nulSeparated, request.followLinks) = (allowPortrait, nulSeparated, followLinks)
        (request.jobs, request.decodeMemory, request.maxPixels, request.quality) = (jobs, decodeMemory, maxPixels, quality)
        (request.skipUnchanged, request.dryRun, request.requireEven) = (skipUnchanged, dryRun, requireEven)
        (request.perFolder, request.watch, request.interval) = (perFolder, watch, interval)
        let layout = layoutArguments
        (request.layout, request.tile, request.gap, request.fit, request.crop) = (layout.layout, layout.tile, layout.gap,
                                                                                  layout.fit, layout.crop)
        (request.label, request.title, request.font) = (layout.label, layout.title, layout.font)
        (request.page, request.dpi, request.margin) = (printArguments.page, printArguments.dpi, printArguments.margin)
        (request.sort, request.reverse, request.groupBy) = (timeArguments.sort, timeArguments.reverse, timeArguments.groupBy)
        request.pick = timeArguments.pick
        (request.video, request.raw) = (cameraRoll.video, cameraRoll.raw)
        (request.frames, request.scenes) = (cameraRoll.frames, cameraRoll.scenes)
        request.every = cameraRoll.every
        request.minRating = cameraRoll.minRating
        request.vtt = cameraRoll.vtt.map { arguments.value(of: "--vtt", parsed: $0) }
        request.exclude = arguments.values(of: ["--exclude"], parsed: cameraRoll.excludes)
        request.excludeFrom = arguments.values(of: ["--exclude-from"], parsed: cameraRoll.excludeFrom)
        request.shard = shardArguments.shard
        request.plan = planArguments.plan.map { arguments.value(of: "--plan", parsed: $0) }
        request.fromPlan = planArguments.fromPlan.map { arguments.value(of: "--from-plan", parsed: $0) }
        let archive = archiveArguments
        (request.html, request.flag, request.failOnFlag) = (archive.html.map(PathName.init), archive.flag, archive.failOnFlag)
        let diff = diffArguments
        request.diff = diff.diff.map { arguments.input($0) }
        (request.threshold, request.countAntiAliased, request.ignore) = (diff.threshold, diff.countAa, diff.ignore)
        (request.tolerance, request.junit, request.failOn) = (diff.tolerance, diff.junit.map(PathName.init), diff.failOn)
        (request.diffImages, request.markdown) = (diff.diffImages.map(PathName.init), diff.markdown.map(PathName.init))
        request.approve = diff.approve.isEmpty && !diff.approveFailing ? nil : diff.approve.map(PathName.init)
        (request.alternative, request.rules) = (diff.alternative, diff.rules.map(PathName.init))
        request.approveFrom = diff.approveFrom.map { arguments.value(of: "--approve-from", parsed: $0) }
        return request
    }
}

/// An option's value parsed once, where ArgumentParser reads it; the line
/// it prints for a value that is not one says what is expected.
func parsed<Value>(_ value: Value?, _ expected: String) throws -> Value {
    guard let value else { throw ValidationError("expected \(expected)") }
    return value
}
