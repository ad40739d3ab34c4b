import Glibc
import Media
import Vips

/// `--raw preview|full|skip` (the decoders' own type, named here for the
/// command line, which does not see the decoders).
public typealias RawMode = Media.RawMode

/// Everything a run needs to know; the command line fills it in.
public struct CollageConfiguration: Sendable {
    /// The INPUTs, in the order given: files, folders, or `-`.
    public var inputs: [Input]
    /// `-0`: standard input lists paths separated by NUL bytes.
    public var nulSeparated = false
    /// `--follow-links`: follow symbolic links to folders (a loop is reported, never followed).
    public var followLinks = false
    /// `--allow-portrait`: keep photos taller than wide (after EXIF rotation).
    public var allowPortrait = false
    /// `--min-rating`: photos rated less by their XMP are rejected (unrated counts 0); nil keeps all.
    public var minRating: Int?
    /// The cap: the most images in one collage.
    public var maxImages = 6
    /// Cut the whole input into sheets of up to `maxImages`.
    public var sheets = false
    /// `--size`'s width, in pixels (with `--page`, the page's at `--dpi`).
    public var canvasWidth = 1200
    /// `--size`'s height, in pixels (with `--page`, the page's at `--dpi`).
    public var canvasHeight = 800
    /// `--size WIDTHx`: each sheet is as tall as its content, and
    /// `canvasHeight` is the height its layout is chosen by
    /// (`CanvasSize.nominalHeight`, the default canvas's 3:2).
    public var naturalHeight = false
    /// `--background`: empty cells and transparency (see `backgroundColour`).
    public var background = RGB.white
    /// `-o`: where to write; the extension picks the format. A template with
    /// `--sheets` (`{n}`), `--per-folder` (`{dir}`, `{path}`), `--group-by` (`{group}`).
    public var output = PathName("collage.jpg")
    /// Decodes at once (each libvips pipeline single-threaded).
    public var jobs = CollageConfiguration.defaultJobs
    /// Images with more pixels than this are rejected from the header.
    public var maxPixels = 268_402_689
    /// JPEG, WebP, HEIF/AVIF quality; nil for libvips' default.
    public var quality: Int?
    /// A policy: a collage is saved only with an even number of
    /// photos; an odd set loses its last image (and the cap rounds down).
    public var requireEven = false
    /// Read headers and say what would be made; decode and write nothing.
    public var dryRun = false
    /// Do nothing if the output was made from the same inputs and options.
    public var skipUnchanged = false
    /// Keep the state beside the output even without `skipUnchanged`
    /// (the first pass of `--watch`, which later passes compare against).
    public var recordState = false
    /// The memory the decodes running at once may hold, by their headers'
    /// estimate: giant progressive JPEGs take turns instead of overlapping.
    /// The default is what a 160 MiB run has left for decodes once the rest
    /// is counted: 15-17 MiB of mapped code (libvips and its libraries, and
    /// ours, whose pages a run of many collages takes out of its resident
    /// set at start and again beside each giant), about 16 MiB of libvips'
    /// region buffers and other heap, and the decode window below. Measured
    /// on 300 wallpapers (BENCHMARKS.md): 96 MiB left the second core idle
    /// beside each giant; at 120 a giant of 89 MiB decoded beside the 30 MiB
    /// Elephants wallpaper, and runs peaked at 147-157 MiB (3000 photos:
    /// 155); at 116 that pair takes turns while the giant decodes beside
    /// baseline photos, for the same wall time and peaks of 141-152 (3000
    /// photos: 150); 112 and 104 cost 11% and 17% more wall time.
    public var decodeMemoryBudget = Self.defaultDecodeMemoryMiB << 20
    /// `decodeMemoryBudget`'s default in MiB, the unit of `--decode-memory`.
    public static let defaultDecodeMemoryMiB = 116
    /// With `--sheets`, how far the decoders work ahead of the sheets: until
    /// the decoded tiles waiting for their turn hold this many bytes, and at
    /// most `decodeWindowImages` images (each an open file until decoded).
    /// What the run holds in tiles is bounded by this window plus one sheet.
    /// 8 MiB (17 tiles of 400x400) kept both cores as busy as 16 did, and
    /// leaves the memory to the decode budget.
    public var decodeWindowBytes = 8 << 20
    /// The most images the decode window holds (see `decodeWindowBytes`).
    public var decodeWindowImages = 64
    /// Walk folders recursively (off for one folder of `--per-folder`).
    public var recursive = true
    /// One folder's run of `--per-folder`: its listing, as the job's walk of
    /// folders read it, so that the run does not read the folder again.
    var listing: DirectoryListing?
    /// `--layout`: a name of `Layouts.registered`.
    public var layoutName = "auto"
    /// `--gap`, `--fit`, `--crop`, `--tile`.
    public var layoutOptions = LayoutOptions()
    /// `--label`, `--title`, `--font`.
    public var captions = Captions()
    /// `--shard I/N`: only this shard's sheets (or folders) are made.
    public var shard: Shard?
    /// `--flag`: what to report of each placed tile (none: no tile is signed).
    public var flags: Set<FlagKind> = []
    /// `--fail-on-flag`: any flag ends the run with status 65.
    public var failOnFlag = false
    /// `--html`: the page that shows the sheets the run wrote.
    public var htmlPage: PathName?
    /// `--plan FILE`: read headers only and write the plan of the job there.
    public var planOutput: PathName?
    /// With `--plan`: the configuration the plan records (what shapes it).
    public var planned: Configuration?
    /// Headers read at once ahead of the scan (`--plan`); 0: one at a time.
    public var headerReadAhead = 0
    /// `--from-plan FILE`: the sheets (and what the scan found) come from the plan.
    public var fromPlan: PathName?
    /// With `--per-folder`: where the folder's part of the plan starts.
    var fromPlanOffset: Int64?
    /// `--page`, `--dpi`, `--margin`: the page, the resolution every image
    /// records, the margin kept clear.
    public var print = PrintSettings()
    /// `--diff BASELINE`: compare INPUT with BASELINE instead of making collages.
    public var diff: DiffSettings?
    /// `--frames N`: a sheet of each video instead of a collage of the inputs.
    public var film: FilmSettings?
    /// `--sort`, `--reverse`: the order images are placed in.
    public var sort = ImageOrder.name
    /// `--reverse`: the order turned round (with `--group-by`, the groups too).
    public var reverse = false
    /// `--pick`: each eligible image looked at, small, and the moments
    /// chosen (`cap` of them, or every one with `--sheets` and no cap).
    public var pick = false
    /// With `--pick`: how many moments one collage shows (per group with
    /// `--group-by`, per folder with `--per-folder`); nil with `--sheets`,
    /// which shows every moment.
    var pickCap: Int?
    /// `--group-by`: one collage (or set of sheets) per group of photos.
    public var groupBy: GroupBy?
    /// One group's run of a `--group-by` job: its name and its images.
    var group: GroupPart?
    /// What the walk considers: `--video`, `--raw`, `--exclude`.
    public var scan = ScanRules()
    /// `--raw preview|full|skip`, as the decoders read it.
    public var raw: RawMode {
        get { scan.raw }
        set { scan.raw = newValue }
    }
    /// `--video`: videos are shown by a poster frame.
    public var video: Bool {
        get { scan.video }
        set { scan.video = newValue }
    }

    /// A configuration for `inputs` with every option at its default.
    public init(inputs: [Input]) {
        self.inputs = inputs
    }

    /// The number of cores this process may run on.
    public static var defaultJobs: Int {
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    var canvas: Canvas { Canvas(width: canvasWidth, height: canvasHeight) }

    /// `-o NAME.pdf`: every sheet a page of one PDF.
    public var writesPDF: Bool { naming.isDocument }
    /// Whether every header is read before anything is placed: an order
    /// other than the scan's needs them all (the cap applies after it).
    var readsEveryHeader: Bool { sort != .name || reverse || pick }

    var keepsState: Bool { (skipUnchanged || recordState) && !dryRun }

    /// The cap as applied: rounded down to even under `requireEven`.
    public var effectiveCap: Int {
        requireEven && maxImages % 2 == 1 && maxImages > 1 ? maxImages - 1 : maxImages
    }
}
