internal import CVipsShim
import FileFacts

/// Encoded bytes libvips produced; one owner of the buffer.
public final class EncodedImage: @unchecked Sendable {  // owns a g_malloc buffer, never written after init
    let base: UnsafeMutableRawPointer
    public let count: Int

    init(base: UnsafeMutableRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { g_free(base) }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}

public enum Encoder {
    /// Encodes 8-bit sRGB pixels in the format `suffix` names (".jpg",
    /// ".png", ".webp", ".tif", ...), with libvips' options in brackets if
    /// any (".jpg[Q=90]"). `orientation` writes an EXIF orientation tag
    /// (tests make rotated images with it); `exif` other EXIF fields, by
    /// libvips' names ("exif-ifd2-DateTimeOriginal": "2019:05:03 14:22:01").
    /// `tagged` (a sheet): sRGB's ICC profile, EXIF's colour space and 72
    /// dpi go with the pixels; without it, nothing but what is asked. `dpi`
    /// is the resolution recorded (JPEG density, PNG pHYs, TIFF resolution,
    /// what WebP and HEIF savers keep), over `tagged`'s 72.
    public static func encode(_ pixels: PixelBuffer, suffix: String, orientation: Int? = nil,
                              exif: [String: String] = [:], dpi: Int? = nil, tagged: Bool = false) throws -> EncodedImage {
        try Vips.start()
        guard let raw = vips_image_new_from_memory(pixels.base, pixels.byteCount, Int32(pixels.width),
                                                  Int32(pixels.height), Int32(pixels.bands), VIPS_FORMAT_UCHAR) else {
            throw VipsError.fromLibvips(.save, "cannot wrap pixels")
        }
        let image = Image(owning: raw)
        if tagged {
            // sRGB's profile, which every saver that can carry one embeds
            // (JPEG, PNG, WebP, TIFF, HEIF/AVIF, JPEG XL), so that a
            // colour-managed viewer shows the pixels as they are meant.
            guard cvips_attach_srgb(image.pointer) == 0 else {
                throw VipsError.fromLibvips(.save, "cannot load the sRGB profile")
            }
            // 72 dpi, not libvips' default of one pixel a millimetre.
            image.pointer.pointee.Xres = 72 / 25.4
            image.pointer.pointee.Yres = 72 / 25.4
            // And EXIF's colour space says sRGB too (libexif's default is "uncalibrated").
            vips_image_set_string(image.pointer, "exif-ifd2-ColorSpace", "1")
        }
        if let orientation {
            vips_image_set_int(image.pointer, "orientation", Int32(orientation))
        }
        for (name, value) in exif { vips_image_set_string(image.pointer, name, value) }
        if let dpi {
            // libvips keeps resolution in pixels per millimetre.
            image.pointer.pointee.Xres = Double(dpi) / 25.4
            image.pointer.pointee.Yres = Double(dpi) / 25.4
        }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = withExtendedLifetime(pixels) {
            cvips_write_to_buffer(image.pointer, suffix, &buffer, &length)
        }
        guard status == 0, let buffer else {
            throw VipsError.fromLibvips(.save, "cannot encode \(suffix)")
        }
        return EncodedImage(base: buffer, count: length)
    }
}
