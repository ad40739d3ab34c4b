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
    /// `--fail-on LIST`: the statuses that make the run exit 1.
    public var failOn = PairStatus.failingByDefault
    /// `--diff-images DIR`: where each differing pair's difference picture goes.
    public var diffImages: PathName?
    /// `--markdown PATH`: a summary in GitHub-flavoured Markdown.
    public var markdown: PathName?
    /// `--html PATH`: the review page (a row per pair, a before/after
    /// switch). Without `diffImages`, its difference pictures go to
    /// `reviewPictures(beside:)`.
    public var html: PathName?
    /// `--approve [PATH...]`: the images that become the baseline (empty:
    /// every pair that fails); nil when not approving.
    public var approve: [PathName]?
    /// `--alternative`: approving keeps the old baseline as `NAME~K.EXT`.
    public var alternative = false
    /// `--approve-from FILE`: the reviewer's decisions (then `approve`
    /// names their pairs), and the file's path.
    public var decisions: ApprovalDecisions?
    public var decisionsFile: PathName?
    /// INPUT as given, for the review page's decisions.
    public var inputs: [String] = []
    /// `--rules FILE`: the options per path, first match wins.
    public var rules: [DiffRule] = []
    /// `--rules FILE`'s bytes, for `--skip-unchanged`'s signature.
    var rulesText: [UInt8] = []

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
            + " fail-on=" + PairStatus.allCases.filter(failOn.contains).map(\.rawValue).joined(separator: ",")
            + (rulesText.isEmpty ? "" : " rules=" + Data(rulesText).base64EncodedString())
    }

    /// Where the review page's difference pictures go when `--diff-images`
    /// is not given: `NAME.files` beside the page `NAME.html` (the name
    /// without its extension, as browsers save a page's files).
    public static func reviewPictures(beside page: PathName) -> PathName {
        let name = page.lastComponent
        var stem = name
        if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex { stem = Array(name[..<dot]) }
        let folder = page.bytes.contains(UInt8(ascii: "/")) ? page.directory : PathName(bytes: [])
        return folder.appending(stem + Array(".files".utf8))
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
