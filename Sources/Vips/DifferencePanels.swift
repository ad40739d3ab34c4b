internal import CVipsShim
internal import CVisualDiff
import FileFacts

extension FullPicture {
    /// The part `region` of the picture (outside it, white) held in memory:
    /// at 1:1, or shrunk as `fitted(region:width:height:)` shrinks it when
    /// larger than `width` x `height`. Fitting the copy into the same box
    /// gives `fitted(region:width:height:)`'s pixels.
    public func kept(region: PixelRect, width: Int, height: Int) throws -> FullPicture {
        FullPicture(try part(region, fitting: width, height))
    }

    /// The whole picture held as `kept(region:width:height:)` holds a part.
    public func kept(width: Int, height: Int) throws -> FullPicture {
        try kept(region: PixelRect(x: 0, y: 0, width: self.width, height: self.height), width: width, height: height)
    }

    /// The part `region` (white outside the picture) shrunk to fit inside
    /// `width` x `height`, never enlarged, in memory: made in C in one pass
    /// over the rows (`vdiff_region_shrunk`: boxes of whole pixels
    /// averaged), reading a picture on disc through its mapping, holding a
    /// row of sums and the result, never the region.
    func part(_ region: PixelRect, fitting width: Int, _ height: Int) throws -> Image {
        let size = Self.fittedSize(region.width, region.height, inside: width, height)
        var out: UnsafeMutablePointer<VipsImage>?
        guard vdiff_region_shrunk(image.pointer, Int32(region.x), Int32(region.y), Int32(region.width),
                                  Int32(region.height), Int32(size.width), Int32(size.height), &out) == 0, let out else {
            throw VipsError.fromLibvips(.operation, "cannot resize")
        }
        return Image(owning: out)
    }

    /// A `width` x `height` picture's size fitted inside `boxWidth` x
    /// `boxHeight`: its shape kept, never enlarged.
    static func fittedSize(_ width: Int, _ height: Int, inside boxWidth: Int, _ boxHeight: Int) -> (width: Int, height: Int) {
        let scale = min(1, Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
        return (max(1, min(width, Int((Double(width) * scale).rounded()))),
                max(1, min(height, Int((Double(height) * scale).rounded()))))
    }
}

/// The current picture as the difference picture's page, shrunk once and
/// held with the difference's marks at that size
/// (`Difference.page(of:width:height:)`).
public struct KeptPage: Sendable {
    /// The page, the size of the difference picture shrunk to `scale`.
    public let picture: FullPicture
    /// 255 where a changed pixel is, and where any differing pixel is (nil: none).
    let changed: FullPicture?, explained: FullPicture?
    /// What it was shrunk by (at most 1).
    public let scale: Double

    /// The bytes it holds.
    public var byteCount: Int { picture.byteCount + (changed?.byteCount ?? 0) + (explained?.byteCount ?? 0) }
}

extension Difference {
    /// The part `region` of the difference picture (`picture(of:region:)`)
    /// held as `FullPicture.kept(region:width:height:)` holds a part.
    public func kept(of current: FullPicture, region: PixelRect, width: Int, height: Int) throws -> FullPicture {
        FullPicture(try marked(current, region: region, fitting: width, height))
    }

    /// `current` shrunk to the size the difference picture fitted inside
    /// `width` x `height` has (libvips' size for that scale), and the marks
    /// at that size, held: made in C in one sweep (`vdiff_small_page`:
    /// boxes of whole pixels averaged; a box that holds a changed or
    /// explained pixel marked), which `picture(of:width:height:)` draws.
    public func page(of current: FullPicture, width: Int, height: Int) throws -> KeptPage {
        let scale = min(1, Double(width) / Double(self.width), Double(height) / Double(self.height))
        let size = scale >= 1 ? (width: self.width, height: self.height)
            : try Image.constant(width: self.width, height: self.height, value: 0)
                .apply(.operation, "cannot resize") { cvips_shrink($0, $1, 1 / scale, 1 / scale) }.size
        var page: UnsafeMutablePointer<VipsImage>?, changed: UnsafeMutablePointer<VipsImage>?,
            explained: UnsafeMutablePointer<VipsImage>?
        guard vdiff_small_page(current.image.pointer, Int32(self.width), Int32(self.height), boxMask?.image.pointer,
                                    Int32(box?.x ?? 0), Int32(box?.y ?? 0), Int32(min(size.width, self.width)),
                                    Int32(min(size.height, self.height)), &page, &changed, &explained) == 0, let page else {
            throw VipsError.fromLibvips(.operation, "cannot shrink the page")
        }
        return KeptPage(picture: FullPicture(Image(owning: page)), changed: changed.map { FullPicture(Image(owning: $0)) },
                        explained: explained.map { FullPicture(Image(owning: $0)) }, scale: scale)
    }

    /// The difference picture fitted inside `width` x `height` as
    /// `picture(of:width:height:)` makes it, from a kept page: the same
    /// pixels when the page was kept for that box; shrunk from the kept
    /// copy (never enlarged) when the box is smaller.
    public func picture(of page: KeptPage, width: Int, height: Int) throws -> PixelBuffer {
        let scale = min(page.scale, Double(width) / Double(self.width), Double(height) / Double(self.height))
        return try FullPicture.fitted(marked(page.picture, scale: scale, kept: page), width: width, height: height)
    }
}

extension Difference {
    /// The marks' colours, `width` x `height`: one pixel repeated to the
    /// edges (no arithmetic per pixel, as a constant made by `linear` has).
    static func red(_ width: Int, _ height: Int) throws -> Image {
        try Image.filled(width: width, height: height, with: [255, 0, 0])
    }

    static func yellow(_ width: Int, _ height: Int) throws -> Image {
        try Image.filled(width: width, height: height, with: [255, 255, 0])
    }

    /// The same result without its mask (what a kept page draws instead).
    public var withoutMask: Difference {
        var copy = Difference(pixels: pixels, raw: raw, noise: noise, shifts: shifts, width: width, height: height,
                              sameSize: sameSize, box: nil, boxMask: nil)
        (copy.change, copy.changeBox) = (change, changeBox)
        return copy
    }
}
