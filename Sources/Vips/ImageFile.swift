internal import CVipsShim
import FileFacts
import Glibc

/// Reads images from file descriptors the caller opened (a path is data:
/// never a string libvips would parse for `[options]`).
public enum ImageFile {
    /// Reads the header only: size, orientation, format. The file's
    /// structure is checked first (`StructureCheck`): a claim of more than
    /// `maxPixels` throws `.tooLarge` before libvips reads a byte of it.
    /// `maxBuffer`: the most one decoder buffer may hold (at least
    /// `StructureCheck.bufferLimit`).
    public static func header(descriptor: Int32, maxPixels: Int = .max,
                              maxBuffer: Int = StructureCheck.bufferLimit) throws -> ImageHeader {
        try Vips.start()
        // Before libvips' sniffing: for a TIFF, libtiff reads the first IFD there.
        let structure = try StructureCheck.check(descriptor: descriptor, maxPixels: maxPixels, maxBuffer: maxBuffer)
        try refuseCameraMedia(structure)
        let source = try rewound(descriptor)
        let format = try allowedFormat(source)
        let raw = try DecoderWarnings(loader: format).during {
            guard let raw = cvips_image_new_from_source(source.pointer) else {
                throw VipsError.fromLibvips(.load, "unreadable \(format) header", loader: format)
            }
            return raw
        }
        let image = Image(owning: raw)
        guard image.width > 0, image.height > 0 else {
            throw VipsError(.load, "image has no pixels")
        }
        var header = ImageHeader(width: image.width, height: image.height, orientation: image.orientation,
                                 format: format, interlaced: image.interlaced, bands: image.bands,
                                 structureBytes: max(structure.bufferBytes, structure.decodeBytes),
                                 dateTaken: image.dateTaken)
        header.takenAt = image.takenAt
        header.shrunkDecodeBytes = structure.shrunkDecodeBytes
        header.heifLayout = format == "heif" ? structure.heifLayout : nil
        let xmp = image.xmpTags
        header.take(embedded: xmp)
        header.hasXMP = xmp != nil
        header.camera = image.cameraFacts
        return header
    }

    /// Decodes the image to one tile of exactly `width` x `height` 8-bit sRGB
    /// pixels: libvips' thumbnail (shrink-on-load, EXIF auto-rotation, cover
    /// then centre crop), converted to sRGB, alpha flattened onto `background`.
    /// Truncated or corrupt data is an error, not a grey band.
    ///
    /// `header`, when given, lets an image whose shape is far from the
    /// tile's (a 17000x16 strip) be cropped before it is resized: libvips'
    /// thumbnail would first scale the whole strip to cover the tile (425000
    /// pixels wide) and take seconds.
    ///
    /// `colourManaged` false leaves an embedded ICC profile unapplied: for
    /// a look judged in grey, where a profile moves a few levels and lcms'
    /// transform, made anew for each image, costs more than its decode.
    public static func tile(descriptor: Int32, width: Int, height: Int, crop: CropMode = .centre, background: RGB,
                            header: ImageHeader? = nil, maxBuffer: Int = StructureCheck.bufferLimit,
                            colourManaged: Bool = true) throws -> PixelBuffer {
        let (structure, source, format, warnings) = try opened(descriptor, maxBuffer: maxBuffer)
        let shrinksOnLoad = ["jpeg", "webp", "heif", "tiff"].contains(format)
        // 16-bit TIFFs and CMYK JPEGs and TIFFs need their own colour steps (see `normalised`).
        let peeked = format == "tiff" || (format == "jpeg" && (header?.bands ?? 4) == 4) ? peek(source) : nil
        return try warnings.during {
            let thumbnail: Image
            if format == "heif", let layout = structure.heifLayout {
                let small = try tiledHEIF(descriptor: descriptor, layout: layout, coverWidth: width, coverHeight: height)
                thumbnail = try small.apply(.load, "cannot decode \(format)") {
                    cvips_thumbnail_image($0, $1, Int32(width), Int32(height), crop.interesting)
                }
            } else if let header, coverArea(header, width, height) > 8 * Double(width) * Double(height) {
                thumbnail = try croppedThumbnail(source, format: format, width: width, height: height, crop: crop,
                                                 warnings)
            } else if !shrinksOnLoad || header.map({ coverArea($0, width, height) > Double($0.width) * Double($0.height) }) == true
                        || peeked?.deep == true {
                // libvips' thumbnail may copy the image to memory on its own
                // threads while it is built (it does for PNGs, and for any
                // image it enlarges); loaded and tagged here first, what the
                // decoder says there is still this image's. Only formats it
                // cannot shrink on load lose nothing by it.
                let raw = cvips_image_new_from_source_strict(source.pointer)
                guard let raw else { throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format) }
                var stored = try warnings.tagged(Image(owning: raw))
                if !shrinksOnLoad, crop == .centre, stored.orientation == 1 {
                    // Only the centred region the tile shows is resized: the
                    // sides a cover-then-crop would resize and throw away
                    // are not (a third of a 16:9 image's resizing for a
                    // 600x533 tile). The decoder still reads whole rows.
                    // (Not for the formats that shrink on load, enlarged
                    // here: their tiles keep the bytes they always had.)
                    stored = try centredRegion(stored, width: width, height: height)
                }
                if stored.format == VIPS_FORMAT_USHORT {
                    stored = try deepResized(stored, width: width, height: height)
                } else if stored.interpretation == VIPS_INTERPRETATION_CMYK {
                    stored = try managed(stored)  // a small image (enlarged) or none that shrinks on load
                }
                thumbnail = try stored.apply(.load, "cannot decode \(format)") {
                    cvips_thumbnail_image($0, $1, Int32(width), Int32(height), crop.interesting)
                }
            } else if format == "heif", structure.shrunkDecodeBytes > 0,
                      let small = shrunkHEIF(descriptor: descriptor, coverWidth: width, coverHeight: height) {
                thumbnail = try small.apply(.load, "cannot decode \(format)") {
                    cvips_thumbnail_image($0, $1, Int32(width), Int32(height), crop.interesting)
                }
            } else {
                var out: UnsafeMutablePointer<VipsImage>?
                let status = peeked?.cmyk == true
                    ? cvips_thumbnail_source_cmyk(source.pointer, &out, Int32(width), Int32(height), crop.interesting)
                    : cvips_thumbnail_source(source.pointer, &out, Int32(width), Int32(height), crop.interesting, 1)
                guard status == 0, let out else {
                    throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
                }
                // The loader runs when the pixels are pulled, on libvips' threads.
                thumbnail = try warnings.tagged(Image(owning: out))
            }
            let image = try normalised(thumbnail, background: background, colourManaged: colourManaged)
            guard image.width == width, image.height == height else {
                throw VipsError(.operation, "resized to \(image.width)x\(image.height), not \(width)x\(height)")
            }
            return try materialise(image)
        }
    }

    // MARK: - Steps

    /// The area the displayed image would have once scaled to cover the tile.
    static func coverArea(_ header: ImageHeader, _ width: Int, _ height: Int) -> Double {
        let w = Double(header.displayedWidth), h = Double(header.displayedHeight)
        let scale = max(Double(width) / w, Double(height) / h)
        return w * scale * h * scale
    }

    /// The centred region with the tile's shape (`centredRegion`), then
    /// upright, then resized. When it must be turned, the region is copied
    /// to memory first: turning a sequentially read image makes libvips keep
    /// every full row it covers (a 40000x4000 strip with orientation 6: half
    /// a gigabyte).
    private static func croppedThumbnail(_ source: Source, format: String, width: Int, height: Int,
                                         crop: CropMode, _ warnings: DecoderWarnings) throws -> Image {
        guard let raw = cvips_image_new_from_source_strict(source.pointer) else {
            throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
        }
        let stored = try warnings.tagged(Image(owning: raw))
        let region = try centredRegion(stored, width: width, height: height)
        var turnable = region
        if stored.orientation != 1 {
            guard let copied = vips_image_copy_memory(region.pointer) else {
                throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
            }
            turnable = Image(owning: copied)
        }
        let upright = try turnable.apply(.load, "cannot decode \(format)") { cvips_autorot($0, $1) }
        return try upright.apply(.load, "cannot decode \(format)") {
            cvips_thumbnail_image($0, $1, Int32(width), Int32(height), crop.interesting)
        }
    }

    /// The centred region of the stored image with the shape of a
    /// `width` x `height` tile once upright (a centred rectangle stays
    /// centred under any EXIF rotation or flip, its sides swapped by a
    /// quarter turn); the image itself when it already has that shape.
    static func centredRegion(_ stored: Image, width: Int, height: Int) throws -> Image {
        let quarterTurn = stored.orientation >= 5
        let uprightWidth = quarterTurn ? stored.height : stored.width
        let uprightHeight = quarterTurn ? stored.width : stored.height
        let scale = max(Double(width) / Double(uprightWidth), Double(height) / Double(uprightHeight))
        let cropWidth = min(uprightWidth, max(1, Int((Double(width) / scale).rounded())))
        let cropHeight = min(uprightHeight, max(1, Int((Double(height) / scale).rounded())))
        let (storedCropWidth, storedCropHeight) = quarterTurn ? (cropHeight, cropWidth) : (cropWidth, cropHeight)
        if storedCropWidth == stored.width && storedCropHeight == stored.height { return stored }
        return try stored.apply(.operation, "cannot crop") {
            cvips_extract_area($0, $1, Int32((stored.width - storedCropWidth) / 2),
                               Int32((stored.height - storedCropHeight) / 2),
                               Int32(storedCropWidth), Int32(storedCropHeight))
        }
    }

    /// Whether the image's samples are 16 bits, and whether it is CMYK
    /// (its header only).
    static func peek(_ source: Source) -> (deep: Bool, cmyk: Bool) {
        guard let raw = cvips_image_new_from_source(source.pointer) else {
            LibvipsErrors.drop(linesContaining: "")
            return (false, false)
        }
        let image = Image(owning: raw)
        return (image.format == VIPS_FORMAT_USHORT, image.interpretation == VIPS_INTERPRETATION_CMYK)
    }

    /// RAW photos and videos are LibRaw's and FFmpeg's (the `Media`
    /// target's): libvips' TIFF loader would call a CR2 corrupt and draw a
    /// Bayer DNG as its grey mosaic.
    static func refuseCameraMedia(_ structure: StructureCheck.Summary) throws {
        switch structure.format {
        case "raw": throw VipsError(.unsupported, "a camera RAW photo, which libvips does not decode")
        case "video": throw VipsError(.unsupported, "a video, which libvips does not decode")
        default: return
        }
    }

    /// What every decode of a file to a tile starts with: libvips started,
    /// the structure checked again (the file may have changed since its
    /// header was read), camera media refused, the file rewound as a
    /// source, its loader allowed, and its decoder's warnings captured.
    static func opened(_ descriptor: Int32, maxBuffer: Int) throws
        -> (structure: StructureCheck.Summary, source: Source, format: String, warnings: DecoderWarnings) {
        try Vips.start()
        let structure = try StructureCheck.check(descriptor: descriptor, maxBuffer: maxBuffer)
        try refuseCameraMedia(structure)
        let source = try rewound(descriptor)
        let format = try allowedFormat(source)
        return (structure, source, format, DecoderWarnings(loader: format))
    }

    static func rewound(_ descriptor: Int32) throws -> Source {
        // Descriptors may be shared with an earlier read (header, then tile).
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw VipsError(.load, String(cString: strerror(errno)))
        }
        return try Source(descriptor: descriptor)
    }

    /// The short name of the allowed loader that recognises the content.
    static func allowedFormat(_ source: Source) throws -> String {
        guard let loader = source.loader,
              let allowed = Vips.allowedLoaders.first(where: { loader.hasPrefix($0) }) else {
            throw VipsError(.unsupported, "not a JPEG, PNG, WebP, GIF, TIFF, HEIF/AVIF or JPEG XL image")
        }
        switch allowed {
        case "VipsForeignLoadNsgif": return "gif"
        default: return String(allowed.dropFirst("VipsForeignLoad".count)).lowercased()
        }
    }
}
