internal import CVipsShim
import FileFacts

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
/// operation over the area where their bytes differ at all:
///
/// - the colour distance of each pixel in YIQ, weighted as pixelmatch
///   does (0.5053 Y² + 0.299 I² + 0.1957 Q², at most 35215), above
///   `threshold`² of its largest;
/// - of those, pixels explained by anti-aliasing in either picture are
///   left out (`AntiAliasing.c`), unless `countAntiAliased`;
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
    /// Where the counted pixels are: the mask's bounding box (nil when
    /// none is counted), and the mask inside it, 255 where a pixel is
    /// counted, 0 elsewhere. Small for a small change, so that a run can
    /// keep it until it draws the pair's cell.
    let box: PixelRect?
    let boxMask: FullPicture?

    /// The bytes it holds.
    public var byteCount: Int { boxMask?.byteCount ?? 0 }

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
        if a.width == b.width, a.height == b.height, a.hasSamePixels(as: b) {
            // The same pixels in other bytes (another encoder, other metadata).
            return Difference(pixels: 0, width: width, height: height, sameSize: true, box: nil, boxMask: nil)
        }
        // Only where the pictures differ at all (their rows compared as
        // bytes first): the distance of each pixel there, then
        // anti-aliasing at the pixels it counts (their neighbours read from
        // the whole pictures); a small change costs a small area.
        let box = a.differingBox(b, width: commonWidth, height: commonHeight)
        let inBox = try box.map { try counted(a, b, in: $0, commonWidth: commonWidth, commonHeight: commonHeight,
                                              options: options) }
        let sameSize = a.width == b.width && a.height == b.height
        if sameSize, options.ignore.isEmpty {
            // Nothing is counted outside the box: the mask is what it holds.
            guard let box, let inBox, let found = try inBox.boundingBox() else {
                return Difference(pixels: 0, width: width, height: height, sameSize: true, box: nil, boxMask: nil)
            }
            let pixels = Int((try inBox.mean() / 255 * Double(box.width * box.height)).rounded())
            let kept = try inBox.cropped(x: found.x, y: found.y, width: found.width, height: found.height).inMemory()
            return Difference(pixels: pixels, width: width, height: height, sameSize: true,
                              box: PixelRect(x: box.x + found.x, y: box.y + found.y, width: found.width,
                                             height: found.height),
                              boxMask: FullPicture(kept))
        }
        let commonMask = try box.map { box in
            try inBox!.embedded(x: box.x, y: box.y, width: commonWidth, height: commonHeight, copyEdge: false,
                                background: 0).inMemory()
        } ?? Image.constant(width: commonWidth, height: commonHeight, value: 0).inMemory()
        var mask = commonMask
        if width != commonWidth || height != commonHeight {
            mask = try commonMask.embedded(x: 0, y: 0, width: width, height: height, copyEdge: false, background: 255)
                .inMemory()
        }
        for rect in options.ignore {
            guard cvips_draw_rect(mask.pointer, 0, Int32(rect.x), Int32(rect.y), Int32(rect.width),
                                  Int32(rect.height)) == 0 else {
                throw VipsError.fromLibvips(.operation, "cannot leave out \(rect)")
            }
        }
        let pixels = Int((try mask.mean() / 255 * Double(width) * Double(height)).rounded())
        let maskBox = pixels == 0 ? nil : try mask.boundingBox()
        let boxMask = try maskBox.map {
            FullPicture(try mask.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height).inMemory())
        }
        return Difference(pixels: pixels, width: width, height: height, sameSize: sameSize, box: maskBox,
                          boxMask: boxMask)
    }

    /// 255 where a pixel of `box` (in the common area) is counted: its
    /// distance over the threshold, and not explained by anti-aliasing
    /// (in C, over the counted pixels alone: `AntiAliasing.c`) unless
    /// `countAntiAliased`.
    private static func counted(_ a: Image, _ b: Image, in box: PixelRect, commonWidth: Int, commonHeight: Int,
                                options: DifferenceOptions) throws -> Image {
        let crop = { (image: Image) in try image.cropped(x: box.x, y: box.y, width: box.width, height: box.height) }
        let yiq = try crop(a).minus(crop(b)).recombined(yiq, rows: 3)
        let distance = try yiq.times(yiq).recombined(weights, rows: 1)
        let inBox = try distance.more(largest * options.threshold * options.threshold).inMemory()
        guard !options.countAntiAliased else { return inBox }
        guard cvips_clear_anti_aliased(a.pointer, b.pointer, Int32(commonWidth), Int32(commonHeight), inBox.pointer,
                                       Int32(box.x), Int32(box.y)) == 0 else {
            throw VipsError.fromLibvips(.operation, "cannot look for anti-aliasing")
        }
        return inBox
    }

    /// The difference picture, shrunk to fit inside `width` x `height`: the
    /// pixels counted in red over a faded grey copy of `current`. A
    /// differing pixel stays red however far it is shrunk. `current` is
    /// shrunk first, then faded: the grey is made of the small picture.
    public func picture(of current: FullPicture, width: Int, height: Int) throws -> PixelBuffer {
        let scale = min(1, Double(width) / Double(self.width), Double(height) / Double(self.height))
        func shrunk(_ image: Image) throws -> Image {
            scale >= 1 ? image : try image.apply(.operation, "cannot resize") { cvips_shrink($0, $1, 1 / scale, 1 / scale) }
        }
        let faded = try shrunk(current.image.embedded(x: 0, y: 0, width: self.width, height: self.height,
                                                      copyEdge: false, background: 255))
            .recombined(Array(Self.yiq.prefix(3)), rows: 1).linear(0.25, 191.25, uchar: true)
        let w = faded.width, h = faded.height
        let greys = try faded.apply(.operation, "cannot join") { cvips_bandjoin3($0, $1) }
        guard let box, let boxMask else { return try FullPicture.fitted(greys, width: width, height: height) }
        let marks = try shrunk(boxMask.image.embedded(x: box.x, y: box.y, width: self.width, height: self.height,
                                                      copyEdge: false, background: 0))
        let full = try Image.constant(width: w, height: h, value: 255), none = try Image.constant(width: w, height: h, value: 0)
        let red = try full.apply(.operation, "cannot join") { cvips_bandjoin2($0, none.pointer, $1) }
            .apply(.operation, "cannot join") { cvips_bandjoin2($0, none.pointer, $1) }
        let marked = try marks.more(0).choosing(red, greys)
        return try FullPicture.fitted(marked, width: width, height: height)
    }

    /// The counted pixels as a picture: white where counted, black elsewhere (tests).
    public func maskPixels() throws -> PixelBuffer {
        let mask = try box.map { box in
            try boxMask!.image.embedded(x: box.x, y: box.y, width: width, height: height, copyEdge: false, background: 0)
        } ?? Image.constant(width: width, height: height, value: 0)
        return try ImageFile.materialise(mask.apply(.operation, "cannot join") { cvips_bandjoin3($0, $1) })
    }
}
