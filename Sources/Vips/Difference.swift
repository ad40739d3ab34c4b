internal import CVipsShim
internal import CVisualDiff
import Glibc
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

/// A band of the baseline that moved: `--diff`'s `shift`.
public struct Shift: Sendable, Equatable {
    /// The band's first row and height in the baseline.
    public let y: Int, height: Int
    /// How far it moved: down (positive) and right (positive).
    public let dy: Int, dx: Int

    public init(y: Int, height: Int, dy: Int, dx: Int) {
        (self.y, self.height, self.dy, self.dx) = (y, height, dy, dx)
    }
}

/// Two full pictures analysed, in C over both whole pictures
/// (`vdiff_analyse`):
///
/// - the rows are aligned first, as a text diff aligns lines (row
///   fingerprints, then matched runs): a band that moved as a whole, even
///   by one pixel, is a `Shift`; content is compared after aligning;
/// - a pixel differs when its YIQ distance, weighted as pixelmatch weighs
///   it (0.5053 Y² + 0.299 I² + 0.1957 Q², at most 35215), is above
///   `threshold`² of its largest;
/// - a differing pixel explained by anti-aliasing (pixelmatch's test), or
///   that matches within the threshold a pixel one away in the other
///   picture (and the other's pixel one in this one), is `noise`; the
///   rest is `pixels`, the real change; with `countAntiAliased` every
///   differing pixel is real;
/// - then each region of pixels of other bytes (touching, under the
///   threshold or not) is judged as a whole: one whose colour moved the
///   same way over an area, by a visible step in OKLab, is a change, every
///   pixel of it in `pixels`, even where none is over the threshold (a
///   panel's fill, a theme's colours); text re-rasterised keeps its ink;
/// - pictures of different sizes are compared on their aligned common
///   part (the common width);
/// - `raw` is pixelmatch's count for the pictures as they are (its
///   published method: the first darkest and brightest neighbour), plus
///   the rest of the larger picture;
/// - `ignore` rectangles (in the current picture) are left out of all.
public struct Difference: Sendable {
    /// Pixels that really changed: one by one, or in a region whose colour moved.
    public let pixels: Int
    /// What pixelmatch counts for the same pair and threshold.
    public let raw: Int
    /// Differing pixels that anti-aliasing or sub-pixel placement explains.
    public let noise: Int
    /// The bands that moved, in the baseline's order.
    public let shifts: [Shift]
    /// A fingerprint of the real change (where it is, and both pictures'
    /// pixels there): equal for the same change in two pairs; nil when
    /// nothing really changed.
    public var change: UInt64? = nil
    /// Where the real change is in the current picture: the bounding box
    /// of `pixels` (nil when nothing really changed).
    public var changeBox: PixelRect? = nil
    /// Where the differing pixels are, changed or explained (nil: none).
    public var differingBox: PixelRect? { box }
    /// The area compared: the largest width and height of the two.
    public let width: Int
    public let height: Int
    public let sameSize: Bool
    /// Where the changed and explained pixels are in the current picture:
    /// the bounding box (nil when none), and the mask inside it, 255 where
    /// a pixel changed, 128 where it differs explained, 0 elsewhere. Small
    /// for a small change, so that a run can keep it until it draws the
    /// pair's cell.
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

    /// With `threads` 2 (a pair that runs alone, with a core to spare),
    /// the pixels are judged on two threads; the result is the same.
    public static func compare(_ baseline: FullPicture, _ current: FullPicture,
                               options: DifferenceOptions, threads: Int = 1) throws -> Difference {
        let (a, b) = (baseline.image, current.image)
        let width = max(a.width, b.width), height = max(a.height, b.height)
        let sameSize = a.width == b.width && a.height == b.height
        if sameSize, vdiff_same_pixels(a.pointer, b.pointer) == 1 {
            // The same pixels in other bytes (another encoder, other metadata).
            return Difference(pixels: 0, raw: 0, noise: 0, shifts: [], width: width, height: height,
                              sameSize: true, box: nil, boxMask: nil)
        }
        let ignore = options.ignore.flatMap { [Int32($0.x), Int32($0.y), Int32($0.width), Int32($0.height)] }
        var found = vdiff_result()
        var shifts = [vdiff_shift](repeating: vdiff_shift(), count: 64)
        let status = vdiff_analyse(a.pointer, b.pointer, options.threshold, options.countAntiAliased ? 1 : 0,
                                        ignore, Int32(options.ignore.count), &shifts, 64, threads > 1 ? 2 : 1, &found)
        guard status == 0 else {
            free(found.mask)
            throw VipsError.fromLibvips(.operation, "cannot compare the pictures")
        }
        var box: PixelRect?, boxMask: FullPicture?
        if found.box_width > 0, let mask = found.mask {
            let rect = PixelRect(x: Int(found.box_x), y: Int(found.box_y), width: Int(found.box_width),
                                 height: Int(found.box_height))
            // Handed over, not copied: the rows of the box without a difference are never resident.
            guard let held = vdiff_image_new_owning(mask, Int32(rect.width), Int32(rect.height), 1) else {
                throw VipsError.fromLibvips(.operation, "cannot hold the mask")
            }
            (box, boxMask) = (rect, FullPicture(Image(owning: held)))
        } else {
            free(found.mask)
        }
        let moved = shifts.prefix(Int(min(found.shift_count, 64))).map {
            Shift(y: Int($0.y), height: Int($0.height), dy: Int($0.dy), dx: Int($0.dx))
        }
        var difference = Difference(pixels: Int(found.pixels), raw: Int(found.raw), noise: Int(found.noise),
                                    shifts: moved, width: width, height: height, sameSize: sameSize, box: box,
                                    boxMask: boxMask)
        difference.change = found.change_hash == 0 ? nil : found.change_hash
        if found.change_width > 0 {
            difference.changeBox = PixelRect(x: Int(found.change_x), y: Int(found.change_y),
                                             width: Int(found.change_width), height: Int(found.change_height))
        }
        return difference
    }

    /// The difference picture, shrunk to fit inside `width` x `height`: the
    /// pixels changed in red, those explained in yellow, over a faded grey
    /// copy of `current`, the bands that moved tinted blue where they are
    /// now. A changed pixel stays red however far it is shrunk. `current`
    /// is shrunk first (`page(of:width:height:)`), then faded: the grey is
    /// made of the small picture.
    public func picture(of current: FullPicture, width: Int, height: Int) throws -> PixelBuffer {
        try picture(of: page(of: current, width: width, height: height), width: width, height: height)
    }

    /// The part `region` of the difference picture (at full size; outside
    /// the picture, white), shrunk to fit inside `width` x `height`.
    public func picture(of current: FullPicture, region: PixelRect, width: Int, height: Int) throws -> PixelBuffer {
        try ImageFile.materialise(marked(current, region: region, fitting: width, height))
    }

    /// `current` faded, with the marks at `scale`; or, with `kept`, its
    /// copy and marks made by `page(of:width:height:)` shrunk the rest of
    /// the way to `scale`.
    func marked(_ current: FullPicture, scale: Double, kept: KeptPage? = nil) throws -> Image {
        func shrunk(_ image: Image, _ scale: Double = scale) throws -> Image {
            scale >= 1 ? image : try image.apply(.operation, "cannot resize") { cvips_shrink($0, $1, 1 / scale, 1 / scale) }
        }
        let page: Image
        if let kept {  // the kept copy shrunk the rest of the way, to the size the whole page shrinks to
            let size = try shrunk(Image.constant(width: self.width, height: self.height, value: 0))
            page = try shrunk(kept.picture.image, min(1, scale / kept.scale))
                .embedded(x: 0, y: 0, width: size.width, height: size.height, copyEdge: true)
        } else {
            page = try shrunk(current.image.embedded(x: 0, y: 0, width: self.width, height: self.height,
                                                     copyEdge: false, background: 255))
        }
        let faded = try page.recombined(Array(Self.yiq.prefix(3)), rows: 1).linear(0.25, 191.25, uchar: true)
        let w = faded.width, h = faded.height
        var greys = try faded.apply(.operation, "cannot join") { cvips_bandjoin3($0, $1) }
        if let moved = try movedRows(height: h, scale: scale) {
            let green = try faded.linear(0.88, 0, uchar: true)
            let tint = try faded.linear(0.8, 0, uchar: true).apply(.operation, "cannot join") {
                cvips_bandjoin2($0, green.pointer, $1)
            }.apply(.operation, "cannot join") { cvips_bandjoin2($0, faded.pointer, $1) }
            greys = try moved.embedded(x: 0, y: 0, width: w, height: h, copyEdge: true).more(0).choosing(tint, greys)
        }
        if let kept, let changed = kept.changed, let explained = kept.explained {
            let rest = min(1, scale / kept.scale)
            let yellowed = try shrunk(explained.image, rest).more(0).choosing(Self.yellow(w, h), greys)
            return try shrunk(changed.image, rest).more(0).choosing(Self.red(w, h), yellowed)
        }
        guard kept == nil, let box, let boxMask else { return greys }
        func marks(_ least: Double) throws -> Image {
            try shrunk(boxMask.image.more(least).embedded(x: box.x, y: box.y, width: self.width, height: self.height,
                                                          copyEdge: false, background: 0)).more(0)
        }
        return try marks(191).choosing(Self.red(w, h), marks(0).choosing(Self.yellow(w, h), greys))
    }

    /// A one-pixel-wide column `height` high, 255 on the rows where a moved
    /// band is now (at `scale`), 0 elsewhere; nil when none moved.
    private func movedRows(height: Int, scale: Double) throws -> Image? {
        guard let rows = movedRowFlags(height: height, scale: scale) else { return nil }
        guard let column = cvips_image_new_from_memory_copy(rows, height, 1, Int32(height), 1) else {
            throw VipsError.fromLibvips(.operation, "cannot mark the moved bands")
        }
        return Image(owning: column)
    }

    /// The counted pixels as a picture: white where counted, black elsewhere (tests).
    public func maskPixels() throws -> PixelBuffer {
        let mask = try box.map { box in
            try boxMask!.image.embedded(x: box.x, y: box.y, width: width, height: height, copyEdge: false, background: 0)
        } ?? Image.constant(width: width, height: height, value: 0)
        return try ImageFile.materialise(mask.more(191).apply(.operation, "cannot join") { cvips_bandjoin3($0, $1) })
    }
}
