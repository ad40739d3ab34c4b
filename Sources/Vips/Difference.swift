internal import CVipsShim

/// How `--diff` decides that a pixel differs.
public struct DifferenceOptions: Sendable, Equatable {
    /// 0-1: the colour distance (YIQ, as pixelmatch weighs it) above which
    /// a pixel differs, as a fraction of the largest there is.
    public var threshold = 0.1
    /// `--count-aa`: count pixels that differ only by anti-aliasing too.
    public var countAntiAliased = false
    /// `--ignore`: rectangles left out, in the pictures' pixels.
    public var ignore: [PixelRect] = []

    public init() {}
}

/// A rectangle of pixels: `--ignore X,Y,W,H`.
public struct PixelRect: Sendable, Equatable {
    public let x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}

/// Two full pictures compared pixel by pixel, every step a libvips
/// operation over the whole picture:
///
/// - the colour distance of each pixel in YIQ, weighted as pixelmatch
///   does (0.5053 Y² + 0.299 I² + 0.1957 Q², at most 35215), above
///   `threshold`² of its largest;
/// - of those, pixels explained by anti-aliasing in either picture are
///   left out (`AntiAliasing`), unless `countAntiAliased`;
/// - pictures of different sizes are compared on their common area (the
///   top-left); the rest of the larger one differs;
/// - `ignore` rectangles are left out last.
public struct Difference: Sendable {
    /// Pixels counted as differing.
    public let pixels: Int
    /// The area compared: the largest width and height of the two.
    public let width: Int
    public let height: Int
    public let sameSize: Bool
    /// 255 where a pixel is counted, 0 elsewhere; `width` x `height`.
    let mask: FullPicture

    public var total: Int { width * height }
    /// `pixels` as a percentage of `total`.
    public var percent: Double { total == 0 ? 0 : Double(pixels) * 100 / Double(total) }

    /// The luma row of YIQ, and its I and Q rows (pixelmatch's coefficients).
    static let yiq: [Double] = [0.29889531, 0.58662247, 0.11448223,
                                0.59597799, -0.27417610, -0.32180189,
                                0.21147017, -0.52261711, 0.31114694]
    static let weights: [Double] = [0.5053, 0.299, 0.1957]
    /// The largest weighted YIQ distance (black against white).
    static let largest = 35215.0

    public static func compare(_ baseline: FullPicture, _ current: FullPicture,
                               options: DifferenceOptions) throws -> Difference {
        let (a, b) = (baseline.image, current.image)
        let commonWidth = min(a.width, b.width), commonHeight = min(a.height, b.height)
        let width = max(a.width, b.width), height = max(a.height, b.height)
        func common(_ image: Image) throws -> Image {
            image.width == commonWidth && image.height == commonHeight ? image
                : try image.cropped(x: 0, y: 0, width: commonWidth, height: commonHeight)
        }
        if a.width == b.width, a.height == b.height, a.hasSamePixels(as: b) {
            // The same pixels in other bytes (another encoder, other metadata).
            return Difference(pixels: 0, width: width, height: height, sameSize: true,
                              mask: FullPicture(try Image.constant(width: width, height: height, value: 0)))
        }
        let (ca, cb) = (try common(a), try common(b))
        let yiq = try ca.minus(cb).recombined(yiq, rows: 3)
        let distance = try yiq.times(yiq).recombined(weights, rows: 1)
        var counted = try distance.more(largest * options.threshold * options.threshold).inMemory()
        if !options.countAntiAliased, let box = try counted.boundingBox() {
            // Only around the differing pixels: with the two pixels beyond
            // them that their neighbours' neighbours need, the result there is
            // the same as over the whole picture.
            let left = max(0, box.x - 2), top = max(0, box.y - 2)
            let right = min(commonWidth, box.x + box.width + 2), bottom = min(commonHeight, box.y + box.height + 2)
            let around = { (image: Image) in
                try image.cropped(x: left, y: top, width: right - left, height: bottom - top)
            }
            let explained = try AntiAliasing.mask(around(ca), around(cb))
                .embedded(x: left, y: top, width: commonWidth, height: commonHeight, copyEdge: false, background: 0)
            counted = try counted.and(explained.equal(0)).inMemory()
        }
        var mask = counted
        if width != commonWidth || height != commonHeight {
            mask = try counted.embedded(x: 0, y: 0, width: width, height: height, copyEdge: false, background: 255)
                .inMemory()
        }
        for rect in options.ignore {
            guard cvips_draw_rect(mask.pointer, 0, Int32(rect.x), Int32(rect.y), Int32(rect.width),
                                  Int32(rect.height)) == 0 else {
                throw VipsError.fromLibvips(.operation, "cannot leave out \(rect)")
            }
        }
        let pixels = Int((try mask.mean() / 255 * Double(width) * Double(height)).rounded())
        return Difference(pixels: pixels, width: width, height: height,
                          sameSize: a.width == b.width && a.height == b.height, mask: FullPicture(mask))
    }

    /// The difference picture, shrunk to fit inside `width` x `height`: the
    /// pixels counted in red over a faded grey copy of `current`. A
    /// differing pixel stays red however far it is shrunk.
    public func picture(of current: FullPicture, width: Int, height: Int) throws -> PixelBuffer {
        let grey = try current.image.recombined(Array(Self.yiq.prefix(3)), rows: 1).linear(0.25, 191.25, uchar: true)
            .embedded(x: 0, y: 0, width: self.width, height: self.height, copyEdge: false, background: 255)
        var marks = try mask.image.linear(1, 0)
        var faded = grey
        let scale = min(1, Double(width) / Double(self.width), Double(height) / Double(self.height))
        if scale < 1 {
            faded = try faded.apply(.operation, "cannot resize") { cvips_shrink($0, $1, 1 / scale, 1 / scale) }
            marks = try marks.apply(.operation, "cannot resize") { cvips_shrink($0, $1, 1 / scale, 1 / scale) }
        }
        let w = faded.width, h = faded.height
        let full = try Image.constant(width: w, height: h, value: 255), none = try Image.constant(width: w, height: h, value: 0)
        let red = try full.apply(.operation, "cannot join") { cvips_bandjoin2($0, none.pointer, $1) }
            .apply(.operation, "cannot join") { cvips_bandjoin2($0, none.pointer, $1) }
        let greys = try faded.apply(.operation, "cannot join") { cvips_bandjoin3($0, $1) }
        let marked = try marks.more(0).choosing(red, greys)
        return try FullPicture.fitted(marked, width: width, height: height)
    }

    /// The counted pixels as a picture: white where counted, black elsewhere (tests).
    public func maskPixels() throws -> PixelBuffer {
        try ImageFile.materialise(mask.image.apply(.operation, "cannot join") { cvips_bandjoin3($0, $1) })
    }
}
