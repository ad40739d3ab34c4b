internal import CVipsShim
import FileFacts

/// Images held in memory (tests and tools): no structure check, no
/// descriptor.
extension ImageFile {
    /// Decodes a whole image to 8-bit sRGB, 3 bands (tests and tools).
    public static func decode(bytes: [UInt8], background: RGB = .white) throws -> PixelBuffer {
        try Vips.start()
        let image: Image = try bytes.withUnsafeBytes { raw in
            guard let pointer = cvips_image_new_from_buffer(raw.baseAddress, raw.count) else {
                throw VipsError.fromLibvips(.load, "cannot decode")
            }
            return Image(owning: pointer)
        }
        // The buffer must stay alive while libvips reads it: materialise inside.
        return try bytes.withUnsafeBytes { _ in
            try materialise(normalised(image, background: background))
        }
    }

    /// The header of an image held in memory (tests and tools).
    public static func header(bytes: [UInt8]) throws -> (width: Int, height: Int, bands: Int, orientation: Int) {
        try Vips.start()
        return try bytes.withUnsafeBytes { raw in
            guard let pointer = cvips_image_new_from_buffer(raw.baseAddress, raw.count) else {
                throw VipsError.fromLibvips(.load, "cannot decode")
            }
            let image = Image(owning: pointer)
            return (image.width, image.height, image.bands, image.orientation)
        }
    }
}
