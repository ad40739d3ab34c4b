import Vips

/// Why an image was left out before decoding.
public enum RejectReason: String, Sendable {
    case portrait
    case tooLarge = "too-large"
    case unsupported
}

/// Everything that happens in a run, in order, on one stream: the stderr
/// reporter, the `--json` writer and the summary all observe it.
public enum PipelineEvent: Sendable {
    /// An image passed the header checks; `displayed` is its size after EXIF orientation.
    case accepted(path: PathName, header: ImageHeader)
    case rejected(path: PathName, reason: RejectReason, detail: String)
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
    /// Something a person should know that is not a failure (the cap, `--require-even`).
    case notice(String)
    /// `-o NAME.pdf`: the PDF of the run's pages was put in place.
    case document(output: PathName, pages: Int)
    /// The last event: how the run ended, with its counts.
    case finished(RunOutcome)
}

/// Where a placed tile's pixels came from (RAW photos, videos) and what decided its crop.
public struct TileOrigin: Sendable, Equatable {
    /// A RAW photo's: "preview" (its embedded JPEG) or "raw" (its raw data).
    public var source: String?
    /// A video's length and the time of the frame shown, in seconds.
    public var duration: Double?
    public var frame: Double?
    /// What decided its crop: "faces", "attention", "entropy" or "centre".
    public var focus: String?

    public init(source: String? = nil, duration: Double? = nil, frame: Double? = nil, focus: String? = nil) {
        self.source = source
        self.duration = duration
        self.frame = frame
        self.focus = focus
    }
}

public struct WrittenSheet: Sendable {
    public let output: PathName
    public let sheet: Int
    public let images: [PathName]
    public let width: Int
    public let height: Int
    public let bytes: Int
    public let milliseconds: Int
    /// `-o NAME.pdf`: the sheet's page in the PDF (1-based).
    public var page: Int? = nil
    /// `--group-by`: the group it is of.
    public var group: String? = nil
}

public struct PlannedSheet: Sendable {
    public let output: PathName
    public let sheet: Int
    public let images: [PathName]
    public let width: Int
    public let height: Int
    /// Where each image would go, from its header.
    public var rects: [TileRect] = []
    /// Each image's caption, when captions are drawn.
    public var labels: [String]? = nil
    /// `--group-by`: the group it is of.
    public var group: String? = nil
}

public struct Summary: Sendable, Equatable {
    public var written = 0
    public var used = 0
    public var rejected = 0
    public var failed = 0
    public var unchanged = 0
    public var planned = 0
    /// Images flagged by `--flag` (one image may be flagged for two reasons).
    public var flagged = 0
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

    public init() {}

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
        case .compared(let pair): compared.count(pair.status)
        case .placed, .notice, .finished, .document, .group: break
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
