/// What a user asks of `collage`: the command line's inputs and options,
/// one property each, as given (`nil` or `false` where not given). It is
/// what the command line parses its words into, what an embedding program
/// builds, and what a plan (`--plan`) records.
///
/// A configuration checks itself: `validate()` finds every usage error the
/// command line reports with status 64, each as one line. `resolve()` then
/// makes the run's `CollageConfiguration` (reading what it names: a plan,
/// `--exclude-from` files, `--shard auto`'s environment).
///
///     var configuration = Configuration(inputs: [.path(PathName("photos"))])
///     configuration.output = PathName("sheets/{n}.jpg")
///     configuration.sheets = true
///     try configuration.validate()
///
/// Option values with a syntax of their own (`CanvasSize`, `Colour`,
/// `GridShape`, `PageSize`, ...) are parsed by their types; a `Configuration`
/// is `Codable`, each such value written as its text.
public struct Configuration: Codable, Sendable, Equatable {
    /// `INPUT...`: files, folders, or `-` (standard input).
    public var inputs: [Input]
    /// `-o`, `--output` (nil: `collage.jpg`).
    public var output: PathName?
    /// `--max`: the cap (nil: 6, or the cells of a `--tile CxR`).
    public var max: Int?
    /// `--sheets`: the whole input in sheets of up to `max`.
    public var sheets = false
    /// `--size` (nil: 1200x800, or the page's with `page`).
    public var size: CanvasSize?
    /// `--background` (nil: white).
    public var background: Colour?
    /// `--layout` (nil: `auto`, or `grid` with `tile`).
    public var layout: String?
    /// `--tile CxR`.
    public var tile: GridShape?
    /// `--gap` in pixels (nil: 0).
    public var gap: Int?
    /// `--fit` (nil: cover; on a film's sheets, contain).
    public var fit: Fit?
    /// `--crop` (nil: centre).
    public var crop: CropChoice?
    /// `--label TEMPLATE`.
    public var label: String?
    /// `--title TEMPLATE`.
    public var title: String?
    /// `--font DESCRIPTION`.
    public var font: FontChoice?
    /// `--page`: each sheet a page, the canvas the page at `dpi` (not with `size`).
    public var page: PageSize?
    /// `--dpi`: the resolution, in pixels per inch (nil: 300 with `page`, else 72).
    public var dpi: Int?
    /// `--margin`: kept clear around a sheet's contents (nil: 10 mm with `page`, else 0).
    public var margin: PrintLength?
    /// `--allow-portrait`.
    public var allowPortrait = false
    /// `-0`, `--null`: standard input lists paths separated by NUL bytes.
    public var nulSeparated = false
    /// `--follow-links`.
    public var followLinks = false
    /// `--jobs` (nil: the number of cores).
    public var jobs: Int?
    /// `--decode-memory` in MiB (nil: `CollageConfiguration.defaultDecodeMemoryMiB`).
    public var decodeMemory: Int?
    /// `--max-pixels` (nil: 16383 squared).
    public var maxPixels: Int?
    /// `--quality` (nil: libvips' default).
    public var quality: Int?
    /// `--skip-unchanged`.
    public var skipUnchanged = false
    /// `--dry-run`.
    public var dryRun = false
    /// `--require-even`.
    public var requireEven = false
    /// `--per-folder`.
    public var perFolder = false
    /// `--sort name|taken|mtime` (nil: name, or taken with `groupBy`).
    public var sort: String?
    /// `--reverse`.
    public var reverse = false
    /// `--group-by day|month|year|gap=DURATION`.
    public var groupBy: String?
    /// `--video`.
    public var video = false
    /// `--raw preview|full|skip` (nil: preview).
    public var raw: String?
    /// `--exclude GLOB` (bytes: a pattern may hold bytes that are not UTF-8).
    public var exclude: [PathName] = []
    /// `--exclude-from FILE`.
    public var excludeFrom: [PathName] = []
    /// `--shard I/N|auto`.
    public var shard: String?
    /// `--plan FILE`.
    public var plan: PathName?
    /// `--from-plan FILE`.
    public var fromPlan: PathName?
    /// `--html PATH`.
    public var html: PathName?
    /// `--flag LIST` (comma-separated).
    public var flag: String?
    /// `--fail-on-flag`.
    public var failOnFlag = false
    /// `--diff BASELINE`.
    public var diff: PathName?
    /// `--threshold T` (nil: 0.1).
    public var threshold: Double?
    /// `--count-aa`.
    public var countAntiAliased = false
    /// `--ignore X,Y,W,H`, each as given.
    public var ignore: [String] = []
    /// `--tolerance N|N%` (nil: 0).
    public var tolerance: String?
    /// `--junit PATH`.
    public var junit: PathName?
    /// `--fail-on LIST`, as given (nil: changed,shifted,resized,added,removed).
    public var failOn: String?
    /// `--diff-images DIR`.
    public var diffImages: PathName?
    /// `--markdown PATH`.
    public var markdown: PathName?
    /// `--approve [PATH...]`: nil, not approving; empty, every pair that fails.
    public var approve: [PathName]?
    /// `--alternative` (with `--approve`).
    public var alternative = false
    /// `--approve-from FILE`: the decisions of the review page to apply.
    public var approveFrom: PathName?
    /// `--rules FILE`.
    public var rules: PathName?
    /// `--watch`.
    public var watch = false
    /// `--interval SECONDS` (nil: 2).
    public var interval: Double?
    /// `--frames N`: a sheet of N frames of each video.
    public var frames: Int?
    /// `--scenes`: with `--frames`, the N most distinct shots.
    public var scenes = false
    /// `--every SECONDS`: a frame of each video at each multiple of SECONDS.
    public var every: Double?
    /// `--vtt PATH`: WebVTT cues pointing at each frame's tile.
    public var vtt: PathName?
    /// `--min-rating N`: only photos rated N or more by their XMP (-1 to 5; unrated counts 0).
    public var minRating: Int?
    /// `--pick`: the run chooses its moments, best shot of each, spread over the time the photos span.
    public var pick = false

    /// One a property, in the order above.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case inputs, output, max, sheets, size, background, layout, tile, gap, fit, crop, label, title, font, page
        case dpi, margin, allowPortrait, nulSeparated, followLinks, jobs, decodeMemory, maxPixels, quality
        case skipUnchanged, dryRun, requireEven, perFolder, sort, reverse, groupBy, video, raw, exclude, excludeFrom
        case shard, plan, fromPlan, html, flag, failOnFlag, diff, threshold, countAntiAliased, ignore, tolerance
        case junit, failOn, diffImages, markdown, approve, alternative, approveFrom, rules, watch, interval, frames, scenes, every, vtt
        case minRating, pick
    }

    /// A configuration of `inputs` with no option given.
    public init(inputs: [Input]) {
        self.inputs = inputs
    }

    /// The output path, `collage.jpg` when none is given.
    public var outputPath: PathName { output ?? PathName("collage.jpg") }

    /// The cap: `max`, or all the cells of a `tile` that fixes both sides.
    public var cap: Int { max ?? tile?.cells ?? 6 }

    /// The layout's name: `tile` alone means grid.
    public var layoutName: String { layout ?? (tile != nil ? "grid" : "auto") }

    /// Whether the run may make many collages (sheets, one per folder, a
    /// watch, a shard of a job): worth preparing the process for a batch.
    public var makesManyCollages: Bool {
        (sheets || perFolder || watch || shard != nil || groupBy != nil || frames != nil || every != nil) && plan == nil
    }
}

extension Configuration {
    /// What changes how a run goes, not what it makes: kept out of a plan,
    /// and the only options that may be given beside `--from-plan`.
    static let runtimeKeys: Set<CodingKeys> = [.skipUnchanged, .shard, .jobs, .decodeMemory, .html, .fromPlan]

    /// The option each property is given by, for the lines that name it.
    static func option(_ key: CodingKeys) -> String {
        switch key {
        case .inputs: return "INPUT"
        case .nulSeparated: return "-0"
        case .countAntiAliased: return "--count-aa"
        default:
            // camelCase to --kebab-case.
            var name = "--"
            for character in key.stringValue {
                if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
            }
            return name
        }
    }
}

/// One INPUT of the command line.
public enum Input: Equatable, Sendable {
    /// A file (always tried) or a folder (scanned recursively).
    case path(PathName)
    /// `-`: paths read from standard input.
    case standardInput
}
