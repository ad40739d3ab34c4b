import FoundationEssentials
import Vips

/// `--diff BASELINE`: what a run compares against, and how.
public struct DiffSettings: Sendable {
    /// The folder of the images as they were.
    public var baseline: PathName
    /// `--threshold`, `--count-aa`, `--ignore`.
    public var difference = DifferenceOptions()
    /// `--tolerance`: at most this many pixels may differ in a pair that is
    /// still `unchanged`.
    public var tolerance = Tolerance.pixels(0)
    /// `--junit PATH`: a JUnit XML report, one test case per pair.
    public var junit: PathName?

    /// Compare against the folder `baseline`, with every other option at its default.
    public init(baseline: PathName) {
        self.baseline = baseline
    }

    /// `--threshold` (the command line does not see libvips' types).
    public var threshold: Double {
        get { difference.threshold }
        set { difference.threshold = newValue }
    }

    /// `--count-aa`.
    public var countAntiAliased: Bool {
        get { difference.countAntiAliased }
        set { difference.countAntiAliased = newValue }
    }

    /// What decides the sheets, as `--skip-unchanged` keeps it.
    var signature: String {
        let ignored = difference.ignore.map { "\($0.x),\($0.y),\($0.width),\($0.height)" }.joined(separator: ";")
        return "diff=" + Data(baseline.bytes).base64EncodedString() + " threshold=\(difference.threshold)"
            + " aa=\(difference.countAntiAliased) ignore=\(ignored) tolerance=\(tolerance)"
    }

    /// `--ignore X,Y,W,H`: one more rectangle left out.
    public mutating func ignore(x: Int, y: Int, width: Int, height: Int) {
        difference.ignore.append(PixelRect(x: x, y: y, width: width, height: height))
    }
}

/// `--tolerance N` or `N%`.
public enum Tolerance: Sendable, Equatable, CustomStringConvertible {
    /// `N`: at most this many differing pixels.
    case pixels(Int)
    /// `N%`: at most this share (0 to 100) of the compared area.
    case percent(Double)

    /// "12" or "0.5%"; nil for anything else (negative, over 100%).
    public init?(_ text: String) {
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast()), value.isFinite, (0...100).contains(value) else { return nil }
            self = .percent(value)
        } else {
            guard let value = Int(text), value >= 0 else { return nil }
            self = .pixels(value)
        }
    }

    /// Whether `pixels` of `total` differing is more than tolerated.
    public func exceeded(by pixels: Int, of total: Int) -> Bool {
        switch self {
        case .pixels(let most): return pixels > most
        case .percent(let most): return Double(pixels) * 100 > most * Double(total)
        }
    }

    public var description: String {
        switch self {
        case .pixels(let most): return "\(most)"
        case .percent(let most): return "\(most)%"
        }
    }
}

/// What a pair of `--diff` is.
public enum PairStatus: String, Sendable, CaseIterable, Comparable {
    /// Both files are there and more than `--tolerance` pixels differ (or the sizes do).
    case changed
    /// Only below INPUT: new since the baseline.
    case added
    /// Only below BASELINE: gone since.
    case removed
    /// The same bytes, or no more than `--tolerance` pixels differ.
    case unchanged

    public static func < (lhs: PairStatus, rhs: PairStatus) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One pair compared: the current image at `path`, the baseline's at
/// `baseline` (either may be missing: `added`, `removed`).
public struct ComparedPair: Sendable, Equatable {
    /// The current image's path, below INPUT (where it would be, when `removed`).
    public let path: PathName
    /// The baseline image's path, below BASELINE (where it would be, when `added`).
    public let baseline: PathName
    /// The path below the roots, the pair's name.
    public let relative: PathName
    /// Whether the pair changed, is new, is gone or is the same.
    public let status: PairStatus
    /// The pixels counted as differing.
    public let pixels: Int
    /// The share of the compared area that differs, 0 to 100.
    public let percent: Double
    /// Set when the two sizes differ: "1920x1080 -> 1920x1200".
    public let size: String?
    /// The largest width and height of the two (for the sheet's layout).
    var shape = ImageShape(width: 1, height: 1)

    /// A pair with its result; nothing differs unless `pixels` and `percent` say so.
    public init(path: PathName, baseline: PathName, relative: PathName, status: PairStatus, pixels: Int = 0,
                percent: Double = 0, size: String? = nil) {
        (self.path, self.baseline, self.relative, self.status) = (path, baseline, relative, status)
        (self.pixels, self.percent, self.size) = (pixels, percent, size)
    }

    /// Most changed first: added and removed (all of it differs), then by
    /// share and count of differing pixels; ties by path.
    public static func moreChanged(_ a: ComparedPair, _ b: ComparedPair) -> Bool {
        if a.percent != b.percent { return a.percent > b.percent }
        if a.pixels != b.pixels { return a.pixels > b.pixels }
        if a.status != b.status { return a.status < b.status }
        return PairOrder.precedes(a.relative.bytes, b.relative.bytes)
    }
}

/// The order of the walk, on paths below a root: component by component,
/// each in the byte order of its name (a folder's files come where its
/// name does, as the depth-first walk emits them).
enum PairOrder {
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let slash = UInt8(ascii: "/")
        let left = a.split(separator: slash, omittingEmptySubsequences: false)
        let right = b.split(separator: slash, omittingEmptySubsequences: false)
        for (x, y) in zip(left, right) where x != y {
            return x.lexicographicallyPrecedes(y)
        }
        return left.count < right.count
    }
}

/// How many pairs of each status a run found.
public struct PairCounts: Sendable, Equatable {
    /// The pairs `changed`, `unchanged`, `added` and `removed`.
    public var changed = 0, unchanged = 0, added = 0, removed = 0

    /// No pairs yet.
    public init() {}

    /// Every pair compared, whatever its status.
    public var total: Int { changed + unchanged + added + removed }
    /// Something is new, gone or changed: exit status 1.
    public var differ: Bool { changed + added + removed > 0 }

    /// One more pair of `status`.
    public mutating func count(_ status: PairStatus) {
        switch status {
        case .changed: changed += 1
        case .unchanged: unchanged += 1
        case .added: added += 1
        case .removed: removed += 1
        }
    }

    /// The pairs of `status`.
    public subscript(status: PairStatus) -> Int {
        switch status {
        case .changed: return changed
        case .unchanged: return unchanged
        case .added: return added
        case .removed: return removed
        }
    }

    mutating func add(_ other: PairCounts) {
        changed += other.changed; unchanged += other.unchanged; added += other.added; removed += other.removed
    }
}

/// The words of `--diff`'s numbers, shared by captions, lines and reports.
enum DiffText {
    /// "0.05%", "12.5%", "100%": at most four significant decimals, never "0%" for a change.
    static func percent(_ value: Double) -> String {
        if value > 0 && value < 0.0001 { return "<0.0001%" }
        var text = String((value * 10_000).rounded() / 10_000)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text + "%"
    }
}
