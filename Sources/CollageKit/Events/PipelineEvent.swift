import FileFacts
import Vips

/// Everything that happens in a run, in order, on one stream: the stderr
/// reporter, the `--json` writer and the summary all observe it.
public enum PipelineEvent: Sendable {
    /// An image passed the header checks; `displayed` is its size after EXIF orientation.
    case accepted(path: PathName, header: ImageHeader)
    /// An image left out before decoding, for `reason`; `detail` says why in words.
    case rejected(path: PathName, reason: RejectReason, detail: String)
    /// An input that could not be used: unreadable, corrupt, truncated, vanished,
    /// a folder that cannot be read, a dangling link; `error` says which.
    case failed(path: PathName, error: String)
    /// A RAW photo or a Live Photo's movie shown by the still of its shot.
    case paired(path: PathName, with: PathName)
    /// A file not used though nothing went wrong: a video without `--video`,
    /// a RAW with `--raw skip`, a sidecar (counted, not in `--json`).
    case passedOver(path: PathName, kind: PassedOverKind)
    /// An image was placed on sheet `sheet` (1-based), covering `rect`
    /// (inside its cell, without its caption), captioned `label` if captions
    /// are drawn; `origin` says what a RAW photo's or a video's tile shows.
    case placed(path: PathName, sheet: Int, index: Int, rect: TileRect, label: String?,
                origin: TileOrigin = TileOrigin())
    /// A collage was written and put in place (`-o NAME.pdf`: a page added to the PDF).
    case written(WrittenSheet)
    /// `--flag`: a placed image looks suspicious (sent before its `placed`).
    case flagged(ImageFlag)
    /// `--dry-run`: what would be written, from headers alone.
    case planned(PlannedSheet)
    /// `--group-by`: the run of one group starts (its events follow).
    case group(name: String, images: Int)
    /// The output exists, made from the same inputs and options.
    case unchanged(output: PathName, images: [PathName])
    /// `--diff`: one pair compared (sent in the walk's order of pairs).
    case compared(ComparedPair)
    /// `--approve`: a pair's current image became its baseline.
    case approved(ApprovedPair)
    /// Something a person should know that is not a failure (the cap, `--require-even`).
    case notice(String)
    /// `-o NAME.pdf`: the PDF of the run's pages was put in place.
    case document(output: PathName, pages: Int)
    /// `--frames`: a film's frame placed on its sheet (sent after its `placed`).
    case frame(FilmFramePlaced)
    /// `--pick`: a photo chosen as its moment's best (sent before its `placed`).
    case picked(PickedPhoto)
    /// `--pick`: a photo of a moment shown, stood for by the moment's best, `into`.
    case stacked(path: PathName, into: PathName)
    /// `--pick`: what the pick of one run (or group, or folder) left out and why, in words (`-v`).
    case pickTold(String)
    /// `--pick`: a photo looked at, small (for the progress line; not in `--json`).
    case looked(path: PathName)
    /// The last event: how the run ended, with its counts.
    case finished(RunOutcome)
}

/// A film's frame on its sheet: where it came from and where it went.
public struct FilmFramePlaced: Sendable, Equatable {
    /// The video.
    public let path: PathName
    /// The time of the frame shown, in seconds.
    public let time: Double
    /// The sheet it is on.
    public let output: PathName
    /// Its 0-based cell on the sheet.
    public let cell: Int
    /// Candidates near its time not taken: "near-black at 0:01", ...
    public let passedOver: [String]

    /// Its time as its caption shows it: "0:42", "1:02:03".
    public var clock: String { Captions.clock(time) }
}

/// Where a placed tile's pixels came from (RAW photos, videos) and what decided its crop.
public struct TileOrigin: Sendable, Equatable {
    /// A RAW photo's: "preview" (its embedded JPEG) or "raw" (its raw data).
    public var source: String?
    /// A video's length and the time of the frame shown, in seconds.
    public var duration: Double?
    /// A video's: the time of the frame shown, in seconds from its start.
    public var frame: Double?
    /// What decided its crop: "faces", "attention", "entropy" or "centre".
    public var focus: String?

    /// nil for each that does not apply (a photo's tile has no `source`, `duration` or `frame`).
    public init(source: String? = nil, duration: Double? = nil, frame: Double? = nil, focus: String? = nil) {
        self.source = source
        self.duration = duration
        self.frame = frame
        self.focus = focus
    }
}

/// A sheet written: the `written` event's fields.
public struct WrittenSheet: Sendable {
    /// The file written (with `-o NAME.pdf`, the PDF the page is in).
    public let output: PathName
    /// The sheet's number, from 1.
    public let sheet: Int
    /// Its images, in tile order.
    public let images: [PathName]
    /// The canvas's width in pixels.
    public let width: Int
    /// The canvas's height in pixels (with `--size WIDTHx`, its content's).
    public let height: Int
    /// The encoded picture's size in bytes (a PDF page: its pictures').
    public let bytes: Int
    /// How long composing and writing it took, in milliseconds.
    public let milliseconds: Int
    /// `-o NAME.pdf`: the sheet's page in the PDF (1-based).
    public var page: Int? = nil
    /// `--group-by`: the group it is of.
    public var group: String? = nil
}

/// `--approve`: one pair made the baseline, the `approved` event's fields.
public struct ApprovedPair: Sendable, Equatable {
    /// The current image (where it was, for a `removed` pair).
    public let path: PathName
    /// The baseline's file, now the current image's bytes (or gone, when `removed`).
    public let baseline: PathName
    /// The pair's status when compared.
    public let status: PairStatus
    /// `--alternative`: where the old baseline was kept.
    public let alternative: PathName?
}

/// A sheet `--dry-run` would write: the `planned` event's fields.
public struct PlannedSheet: Sendable {
    /// Where it would be written.
    public let output: PathName
    /// The sheet's number, from 1.
    public let sheet: Int
    /// Its images, in tile order.
    public let images: [PathName]
    /// The canvas's width in pixels.
    public let width: Int
    /// The canvas's height in pixels (with `--size WIDTHx`, its content's).
    public let height: Int
    /// Where each image would go, from its header.
    public var rects: [TileRect] = []
    /// Each image's caption, when captions are drawn.
    public var labels: [String]? = nil
    /// `--group-by`: the group it is of.
    public var group: String? = nil
}

/// A run's counts, as the `summary` event reports them.
public struct Summary: Sendable, Equatable {
    /// Collages written (a PDF's pages each).
    public var written = 0
    /// Images in the collages written, found unchanged or planned.
    public var used = 0
    /// Images rejected before decoding.
    public var rejected = 0
    /// Inputs that failed (unreadable, corrupt, ...).
    public var failed = 0
    /// Outputs left as they were, made from the same inputs and options.
    public var unchanged = 0
    /// Collages `--dry-run` planned.
    public var planned = 0
    /// Images flagged by `--flag` (one image may be flagged for two reasons).
    public var flagged = 0
    /// Images whose header was read: accepted or rejected.
    public var considered = 0
    /// Of `rejected`, how many were portrait.
    public var portraits = 0
    /// RAW photos and movies shown by their still.
    public var paired = 0
    /// Files passed over, by kind (empty files and files that are not
    /// images are among `rejected` too).
    public var passedOver = PassedOver()
    /// `--diff`: the pairs of each status.
    public var compared = PairCounts()

    /// Nothing counted yet.
    public init() {}

    /// Counts what `event` tells, if anything.
    public mutating func count(_ event: PipelineEvent) {
        switch event {
        case .accepted: considered += 1
        case .rejected(_, let reason, let detail):
            rejected += 1
            considered += 1
            if reason == .portrait { portraits += 1 }
            if let kind = PassedOver.kind(rejected: reason, detail: detail) { passedOver.count(kind) }
        case .paired: paired += 1
        case .passedOver(_, let kind): passedOver.count(kind)
        case .failed: failed += 1
        case .written(let sheet): written += 1; used += sheet.images.count
        case .unchanged(_, let images): unchanged += 1; used += images.count
        case .planned(let sheet): planned += 1; used += sheet.images.count
        case .flagged: flagged += 1
        case .compared(let pair): compared.count(pair.status, fails: pair.fails)
        case .placed, .notice, .finished, .document, .group, .frame, .approved, .picked, .stacked, .pickTold, .looked: break
        }
    }
}

extension Summary {
    /// Adds another run's counts to these.
    public mutating func add(_ other: Summary) {
        written += other.written
        used += other.used
        rejected += other.rejected
        failed += other.failed
        unchanged += other.unchanged
        considered += other.considered
        portraits += other.portraits
        planned += other.planned
        flagged += other.flagged
        paired += other.paired
        passedOver.add(other.passedOver)
        compared.add(other.compared)
    }
}
