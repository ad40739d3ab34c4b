import FoundationEssentials
import Vips

/// What a pair of `--diff` is, in the order the sheets show them.
public enum PairStatus: String, Sendable, CaseIterable, Comparable, Codable {
    /// Both files are there and more than `--tolerance` pixels really
    /// changed (after aligning moved bands, noise left out).
    case changed
    /// The sizes differ, and the aligned common part did not change.
    case resized
    /// A band of the page moved, and nothing else changed.
    case shifted
    /// Only below INPUT: new since the baseline.
    case added
    /// Only below BASELINE: gone since.
    case removed
    /// Pixels differ, but each is explained by anti-aliasing or sub-pixel
    /// placement (it matches a pixel one away in the other picture): the
    /// same content rasterised differently. An area whose colour changed
    /// is never noise.
    case noise
    /// The same bytes, or no more than `--tolerance` pixels differ.
    case unchanged

    /// `--fail-on`'s default: all but `noise` (and `unchanged`).
    public static let failingByDefault: Set<PairStatus> = [.changed, .shifted, .resized, .added, .removed]

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
    /// The pixels that really changed (all of them when added or removed).
    public let pixels: Int
    /// What pixelmatch counts for the pair (0 when added or removed).
    public var raw = 0
    /// The bands that moved.
    public var shifts: [Shift] = []
    /// Whether its status is one `--fail-on` lists.
    public var fails = false
    /// The number of its change, when it really changed: pairs with the
    /// same change (same place, same pixels before and after) share it.
    public var group: Int?
    /// The fingerprint of its change (`Difference.change`), when changed.
    var change: UInt64?
    /// On a sheet: how many pairs its cell stands for (its group's size).
    var members = 1
    /// What its cell shows at up to 1:1, in the current picture: the real
    /// change, the start of the first band that moved, or the noise (nil:
    /// the whole page).
    var region: PixelRect?
    /// How long reading and comparing it took, in seconds (JUnit's `time`).
    public var seconds = 0.0
    /// Where `--diff-images` wrote its difference picture.
    public var differencePicture: PathName?
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

    /// The sheets' order: changed (most real change first), resized,
    /// shifted, added, removed, noise; ties by path.
    public static func moreChanged(_ a: ComparedPair, _ b: ComparedPair) -> Bool {
        if a.status != b.status { return a.status < b.status }
        if a.status == .changed, a.pixels != b.pixels { return a.pixels > b.pixels }
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
