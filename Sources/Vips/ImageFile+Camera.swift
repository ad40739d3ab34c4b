internal import CVipsShim
import FileFacts

/// Pictures the camera media decoders hand over (`Sources/Media`): a RAW's
/// JPEG preview as bytes, a demosaic or a video frame as pixels. libvips
/// resizes them like any image; it never sees the RAW or the video itself.
extension ImageFile {
    /// A JPEG held in memory to one tile of exactly `width` x `height` 8-bit
    /// sRGB pixels: shrink-on-load, cover then crop, as `tile(descriptor:)`.
    /// `orientation` (1-8), when given, is applied instead of the JPEG's own
    /// (a RAW's preview is stored as the sensor saw it; the RAW says how to
    /// turn it).
    public static func tile(jpeg bytes: [UInt8], width: Int, height: Int, crop: CropMode = .centre,
                            background: RGB, orientation: Int? = nil) throws -> PixelBuffer {
        try bytes.withUnsafeBytes { raw in
            try previewTile(width: width, height: height, background: background, orientation: orientation) {
                out, width, height, noRotate in
                cvips_thumbnail_buffer(raw.baseAddress, raw.count, &out, width, height, crop.interesting, noRotate)
            }
        }
    }

    /// The same for the JPEG stored as `length` bytes at `offset` of an open
    /// file (a RAW's embedded preview), read in place: libvips reads the
    /// range as it decodes, so neither the file's nor the JPEG's bytes are
    /// ever held whole.
    public static func tile(jpegIn descriptor: Int32, offset: Int, length: Int, width: Int, height: Int,
                            crop: CropMode = .centre, background: RGB, orientation: Int? = nil) throws -> PixelBuffer {
        try previewTile(width: width, height: height, background: background, orientation: orientation) {
            out, width, height, noRotate in
            cvips_thumbnail_range(descriptor, offset, length, &out, width, height, crop.interesting,
                                  noRotate)
        }
    }

    private static func previewTile(
        width: Int, height: Int, background: RGB, orientation: Int?,
        thumbnail: (inout UnsafeMutablePointer<VipsImage>?, Int32, Int32, Int32) -> Int32
    ) throws -> PixelBuffer {
        try Vips.start()
        let turn = orientation.map { (1...8).contains($0) ? $0 : 1 } ?? 1
        let quarter = turn >= 5
        let warnings = DecoderWarnings(loader: "jpeg")
        return try warnings.during {
            var out: UnsafeMutablePointer<VipsImage>?
            guard thumbnail(&out, Int32(quarter ? height : width), Int32(quarter ? width : height),
                            orientation == nil ? 0 : 1) == 0, let out else {
                throw VipsError.fromLibvips(.load, "cannot decode the preview jpeg", loader: "jpeg")
            }
            var image = try warnings.tagged(Image(owning: out))
            if turn != 1 {
                image = try image.apply(.operation, "cannot turn the preview") { cvips_orient($0, $1, Int32(turn)) }
            }
            return try finished(image, width: width, height: height, background: background)
        }
    }

    /// 8-bit pixels in memory (`bands` interleaved samples, rows packed),
    /// turned upright as `orientation` says, to one tile: cover then crop.
    public static func tile(pixels: UnsafeRawBufferPointer, pixelWidth: Int, pixelHeight: Int, bands: Int,
                            orientation: Int = 1, width: Int, height: Int, crop: CropMode = .centre,
                            background: RGB) throws -> PixelBuffer {
        try Vips.start()
        guard pixelWidth > 0, pixelHeight > 0, (1...4).contains(bands),
              pixels.count >= pixelWidth * pixelHeight * bands, let base = pixels.baseAddress,
              let raw = cvips_image_new_from_memory(base, pixelWidth * pixelHeight * bands, Int32(pixelWidth),
                                                    Int32(pixelHeight), Int32(bands)) else {
            throw VipsError.fromLibvips(.operation, "cannot take the decoded pixels")
        }
        var image = Image(owning: raw)
        if orientation != 1 && (1...8).contains(orientation) {
            image = try image.apply(.operation, "cannot turn the picture") { cvips_orient($0, $1, Int32(orientation)) }
        }
        let resized = try image.apply(.operation, "cannot resize") {
            cvips_thumbnail_image($0, $1, Int32(width), Int32(height), crop.interesting)
        }
        return try finished(resized, width: width, height: height, background: background)
    }

    /// 8-bit sRGB, 3 bands, exactly the tile's size, computed now.
    static func finished(_ image: Image, width: Int, height: Int, background: RGB) throws -> PixelBuffer {
        let normal = try normalised(image, background: background)
        guard normal.width == width, normal.height == height else {
            throw VipsError(.operation, "resized to \(normal.width)x\(normal.height), not \(width)x\(height)")
        }
        return try materialise(normal)
    }
}
