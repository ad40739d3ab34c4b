/// Why an image was left out before decoding.
public enum RejectReason: String, Sendable {
    /// Taller than wide after EXIF rotation, without `--allow-portrait`.
    case portrait
    /// More pixels than `--max-pixels`, by its header.
    case tooLarge = "too-large"
    /// No allowed decoder reads it: an empty file, not an image, a special file.
    case unsupported
    /// Rated under `--min-rating` (unrated counts 0), by its XMP.
    case rating
}

/// Why a file the run met was not used, though nothing went wrong: the
/// kinds the `summary` counts under `passed_over`.
public enum PassedOverKind: String, Sendable, CaseIterable {
    /// A 0-byte file with an image's name (also `rejected`, `unsupported`).
    case empty
    /// Tried, and not an image this build reads (also `rejected`, `unsupported`).
    case notImage = "not_image"
    /// A sidecar named on standard input, or beside the photos of a folder.
    case sidecar
    /// A video, without `--video`.
    case video
    /// A RAW photo, with `--raw skip`.
    case raw
    /// A file cut short and modified within the last minute: still being
    /// copied (`StillBeingWritten`), named in a `notice` of its own.
    case beingWritten = "being_written"
}

/// The files passed over, counted by kind.
public struct PassedOver: Sendable, Equatable {
    /// How many files of each kind were passed over.
    public private(set) var counts: [PassedOverKind: Int] = [:]

    /// None passed over yet.
    public init() {}

    /// How many files of `kind` were passed over.
    public subscript(kind: PassedOverKind) -> Int { counts[kind] ?? 0 }

    /// How many files were passed over, of every kind.
    public var total: Int { counts.values.reduce(0, +) }

    /// Counts `amount` more files of `kind`.
    public mutating func count(_ kind: PassedOverKind, by amount: Int = 1) { counts[kind, default: 0] += amount }

    /// Adds another run's counts to these (a job's passes, a plan's shards).
    public mutating func add(_ other: PassedOver) {
        for (kind, amount) in other.counts { count(kind, by: amount) }
    }

    /// The detail of a `rejected` event for an empty file.
    static let emptyFileDetail = "empty file"

    /// The kind a rejection counts as, if it is one of passing over.
    static func kind(rejected reason: RejectReason, detail: String) -> PassedOverKind? {
        guard reason == .unsupported else { return nil }
        return detail == emptyFileDetail ? .empty : .notImage
    }

    /// One line a person may want at the end of a run, for each kind the
    /// walk passed over without a `rejected` event of its own (empty files
    /// and files that are not images have theirs).
    var notices: [String] {
        var lines: [String] = []
        if self[.video] > 0 {
            lines.append("passed over \(self[.video]) video file(s); --video shows each by a poster frame")
        }
        if self[.raw] > 0 { lines.append("passed over \(self[.raw]) RAW photo(s), as --raw skip asks") }
        if self[.sidecar] > 0 {
            lines.append("passed over \(self[.sidecar]) sidecar file(s) (.xmp .json .aae .thm .db .ini): not photos")
        }
        return lines
    }

    /// Whether `text` is one of the lines of `notices` (each begins so,
    /// and no other notice a run makes does): what a run says of its
    /// counts, which a plan does not keep, as each run from it says it again.
    static func isNotice(_ text: String) -> Bool { text.hasPrefix("passed over ") }

    /// "2 video, 1 sidecar", in the kinds' order; empty when none.
    public var text: String {
        PassedOverKind.allCases.filter { self[$0] > 0 }.map { "\(self[$0]) \($0.rawValue)" }
            .joined(separator: ", ")
    }
}
