internal import CHEVC
internal import CVipsShim
import FileFacts
import Glibc

/// HEIF photos decoded small: an 8-bit HEVC picture is box-shrunk plane by
/// plane as it leaves the decoder (`chevc_decode_shrunk`), and only the
/// small picture is made RGB. libvips' own loader makes the whole picture
/// RGB, and keeps it while it resizes.
extension ImageFile {
    /// The primary image of the HEIF file open on `descriptor`, scaled to
    /// cover `coverWidth` x `coverHeight` (libvips' resize of the shrunk
    /// picture by the scale that takes the whole picture to cover it, times
    /// the box factor; libvips' thumbnail would scale the floor(w / factor)
    /// wide picture to cover instead, a little larger), upright as libheif
    /// shows it (its irot and
    /// imir applied, as libvips' loader has it), with its ICC profile
    /// attached as libvips' loader would. Nil for what this path
    /// leaves to libvips' loader, which then decodes the file as before
    /// (and reports its errors its own way): too little to shrink, alpha,
    /// more than 8 bits, monochrome, AV1, grids, cropped images, any error.
    /// Callers try it only where the structure check found an 8-bit HEVC
    /// image and no grid (`StructureCheck.Summary.shrunkDecodeBytes`), so
    /// that an AVIF is not decoded twice.
    static func shrunkHEIF(descriptor: Int32, coverWidth: Int, coverHeight: Int) -> Image? {
        var picture = chevc_shrunk()
        guard coverWidth > 0, coverHeight > 0, coverWidth <= Int(Int32.max), coverHeight <= Int(Int32.max),
              chevc_decode_shrunk(descriptor, Int32(coverWidth), Int32(coverHeight), &picture) == 0 else { return nil }
        // The pixels are the image's from here (freed when it closes); the profile is copied.
        defer { free(picture.icc) }
        let size = Int(picture.width) * Int(picture.height) * 3
        guard let raw = cvips_image_new_from_owned_rgb(picture.pixels, size, picture.width, picture.height,
                                                       picture.icc, picture.icc_size) else {
            LibvipsErrors.drop(linesContaining: "")
            return nil
        }
        let small = Image(owning: raw)
        let scale = max(Double(coverWidth) / Double(picture.shown_width), Double(coverHeight) / Double(picture.shown_height))
        return try? small.apply(.load, "cannot resize") { cvips_resize($0, $1, scale * Double(picture.factor)) }
    }

    /// How many HEIF images have been decoded small in this process.
    public static var heifShrunkDecodes: UInt { chevc_shrunk_decoded() }

    /// Whether `tile` decodes the image of `header` small for a tile of
    /// `tileWidth` x `tileHeight`: an 8-bit HEVC HEIF image without alpha,
    /// shrunk at least 2x, of a shape `tile` does not crop first.
    static func decodesSmall(_ header: ImageHeader, tileWidth: Int, tileHeight: Int) -> Bool {
        guard header.format == "heif", header.shrunkDecodeBytes > 0, header.bands == 3, tileWidth > 0, tileHeight > 0
        else { return false }
        return coverArea(header, tileWidth, tileHeight) <= 8 * Double(tileWidth) * Double(tileHeight)
            && heifShrinkFactor(width: header.displayedWidth, height: header.displayedHeight,
                                coverWidth: tileWidth, coverHeight: tileHeight) >= 2
    }

    /// The box factor `shrunkHEIF` uses for an image shown `width` x
    /// `height` covering a `coverWidth` x `coverHeight` tile (below 2: not
    /// decoded small).
    static func heifShrinkFactor(width: Int, height: Int, coverWidth: Int, coverHeight: Int) -> Int {
        let clamp = { (value: Int) in Int32(clamping: value) }
        return Int(chevc_shrink_factor(clamp(width), clamp(height), clamp(coverWidth), clamp(coverHeight)))
    }
}

extension ImageHeader {
    /// What decoding this image to a tile of `width` x `height` holds at
    /// its peak: `decodeBytes`, except for HEIF images decoded small
    /// (`ImageFile.decodesSmall`) or tile by tile (`ImageFile.tiledDecodeBytes`), RAW photos (the preview's JPEG
    /// decoder, reading the preview in place, or unpacking and demosaicing: the raw data, LibRaw's 4-sample
    /// 16-bit working image, its 8-bit output) and videos (the decoder's
    /// frames and the poster, shrunk to the tile as it is converted).
    public func decodeBytes(forTile tileWidth: Int, _ tileHeight: Int) -> Int {
        switch media {
        case .raw(let facts)?:
            switch rawSource(forTile: tileWidth, tileHeight) {
            case .preview?:
                let pixels = facts.previewWidth * facts.previewHeight
                let decoder = facts.previewBufferBytes > 0 ? facts.previewBufferBytes : pixels * 3 / 16
                return Self.workingSet + decoder
            case .half?: return demosaicBytes(half: true)
            case .full?: return demosaicBytes(half: false)
            case nil:
                return Self.workingSet
            }
        case .video(let facts)?:
            // The poster, shrunk by swscale to cover twice the tile at most: 16-bit, then 8-bit.
            let poster = min(width * height, 4 * max(1, tileWidth) * max(1, tileHeight))
            return Self.workingSet + facts.decoderBytes + poster * 9
        case nil:
            if let heifLayout {
                return Self.workingSet + ImageFile.tiledDecodeBytes(heifLayout, coverWidth: tileWidth, coverHeight: tileHeight)
            }
            return ImageFile.decodesSmall(self, tileWidth: tileWidth, tileHeight: tileHeight)
                ? Self.workingSet + shrunkDecodeBytes : decodeBytes
        }
    }
}
