internal import CVipsShim
import FileFacts

/// A decoded image's last steps: colour-managed to 8-bit sRGB, computed.
extension ImageFile {
    /// Any colour space, depth and alpha to 8-bit sRGB with 3 bands: from
    /// its embedded ICC profile by lcms (at 16 bits for a 16-bit image),
    /// else a CMYK image through libvips' standard CMYK profile and any
    /// other as sRGB already. Not `colourManaged`: an embedded profile is
    /// not applied (but a CMYK image's still is).
    static func normalised(_ input: Image, background: RGB, colourManaged: Bool = true) throws -> Image {
        var image = colourManaged || input.interpretation == VIPS_INTERPRETATION_CMYK ? try managed(input) : input
        if image.interpretation != VIPS_INTERPRETATION_sRGB || image.format != VIPS_FORMAT_UCHAR {
            image = try image.apply(.operation, "cannot convert to sRGB") {
                cvips_colourspace($0, $1, VIPS_INTERPRETATION_sRGB)
            }
        }
        if image.hasAlpha {
            image = try image.apply(.operation, "cannot flatten alpha") {
                cvips_flatten($0, $1, Double(background.red), Double(background.green), Double(background.blue))
            }
        }
        if image.format != VIPS_FORMAT_UCHAR {
            image = try image.apply(.operation, "cannot convert to 8 bits") { cvips_cast($0, $1, VIPS_FORMAT_UCHAR) }
        }
        if image.bands == 1 {
            image = try image.apply(.operation, "cannot convert grey") { cvips_bandjoin3($0, $1) }
        } else if image.bands > 3 {
            image = try image.apply(.operation, "cannot drop extra bands") { cvips_extract_bands($0, $1, 0, 3) }
        } else if image.bands == 2 {
            image = try image.apply(.operation, "cannot convert grey") { cvips_extract_bands($0, $1, 0, 1) }
            image = try image.apply(.operation, "cannot convert grey") { cvips_bandjoin3($0, $1) }
        }
        return image
    }

    /// `input` from its embedded profile to sRGB, the profile removed; as it
    /// is when it has none (or sRGB's own, or one it cannot use).
    static func managed(_ input: Image) throws -> Image {
        try input.apply(.operation, "cannot convert its colour profile to sRGB") {
            cvips_to_srgb($0, $1, input.format == VIPS_FORMAT_USHORT ? 16 : 8)
        }
    }

    /// A 16-bit image scaled to cover the tile at 16 bits and converted
    /// from its profile there, so that it is rounded to 8 bits only once,
    /// at the end (libvips' thumbnail would round it first).
    static func deepResized(_ stored: Image, width: Int, height: Int) throws -> Image {
        let quarterTurn = stored.orientation >= 5
        let uprightWidth = Double(quarterTurn ? stored.height : stored.width)
        let uprightHeight = Double(quarterTurn ? stored.width : stored.height)
        let scale = max(Double(width) / uprightWidth, Double(height) / uprightHeight)
        let resized = scale >= 1 ? stored : try stored.apply(.operation, "cannot resize") {
            cvips_resize($0, $1, scale)
        }
        return try managed(resized)
    }

    /// Runs the pipeline: this is where pixels are decoded.
    static func materialise(_ image: Image) throws -> PixelBuffer {
        var size = 0
        guard let data = vips_image_write_to_memory(image.pointer, &size) else {
            throw VipsError.fromLibvips(.load, "cannot decode")
        }
        guard size == image.width * image.height * 3 else {
            g_free(data)
            throw VipsError(.operation, "unexpected pixel layout")
        }
        return PixelBuffer(width: image.width, height: image.height, bands: 3, base: data,
                           release: { g_free($0) })
    }
}
