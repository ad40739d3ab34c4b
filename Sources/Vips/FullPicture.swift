internal import CVipsShim
internal import CVisualDiff
internal import CPNG
import Glibc
import FileFacts

/// A picture decoded whole, at its full size (never a thumbnail), upright,
/// colour-managed to 8-bit sRGB with its alpha composited on white, held in
/// memory, or kept on disc (`ImageFile.full(descriptor:maxBuffer:onDisc:)`):
/// what `--diff` compares.
public final class FullPicture: @unchecked Sendable {  // a libvips memory image or one of a file's rows, only read once made
    let image: Image
    /// Whether its pixels are in a temporary file, not in memory.
    public let onDisc: Bool

    init(_ image: Image, onDisc: Bool = false) {
        self.image = image
        self.onDisc = onDisc
    }

    public var width: Int { image.width }
    public var height: Int { image.height }
    /// The bytes it holds in memory (a picture on disc holds none of its own).
    public var byteCount: Int { onDisc ? 0 : image.width * image.height * image.bands }

    /// The same pixels kept on disc, as `ImageFile.full(descriptor:maxBuffer:onDisc:)`
    /// keeps a picture (tests).
    public func keptOnDisc() throws -> FullPicture { try Self.onDisc(image) }

    /// `image`'s pixels written to a temporary file where libvips keeps its
    /// own (TMPDIR, else /tmp), strip by strip, never held whole; the file
    /// is unlinked from the start, and read back strip by strip (or, by the
    /// analysis, through a mapping whose pages it gives back as it goes).
    static func onDisc(_ image: Image) throws -> FullPicture {
        let folder = String(cString: vdiff_rows_temp_folder())
        let descriptor = vdiff_rows_temp_file()
        guard descriptor >= 0 else {
            throw TemporaryFileError(description: "cannot make a temporary file in \(folder) for the picture: "
                                     + Self.reason(errno))
        }
        let written = vdiff_rows_write(image.pointer, descriptor)
        guard written == 0 else {
            close(descriptor)
            if written > 0 {
                _ = LibvipsErrors.take(for: nil)  // libvips' own line for the write adds nothing
                throw TemporaryFileError(description: "cannot write the picture to a temporary file in \(folder): "
                                         + Self.reason(written))
            }
            throw VipsError.fromLibvips(.load, "cannot decode the picture")
        }
        guard let rows = vdiff_image_new_from_rows_file(descriptor, Int32(image.width), Int32(image.height),
                                                         Int32(image.bands)) else {
            throw VipsError.fromLibvips(.operation, "cannot read the picture back from \(folder)")
        }
        return FullPicture(Image(owning: rows), onDisc: true)
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Its pixels, for tests and tools.
    public func pixels() throws -> PixelBuffer { try ImageFile.materialise(image) }

    /// A picture made of `pixels` as they are (tests).
    public convenience init(_ pixels: PixelBuffer) throws {
        try Vips.start()
        let copied = pixels.withUnsafeBytes { bytes in
            cvips_image_new_from_memory_copy(bytes.baseAddress, bytes.count, Int32(pixels.width), Int32(pixels.height),
                                             Int32(pixels.bands))
        }
        guard let copied else { throw VipsError.fromLibvips(.operation, "cannot hold the pixels") }
        self.init(Image(owning: copied))
    }

    /// The whole picture shrunk to fit inside `width` x `height` (its
    /// shape kept, never enlarged).
    public func fitted(width: Int, height: Int) throws -> PixelBuffer {
        try fitted(region: PixelRect(x: 0, y: 0, width: self.width, height: self.height), width: width, height: height)
    }

    /// The part `region` of the picture (outside it, white), shrunk to fit
    /// inside `width` x `height` (never enlarged).
    public func fitted(region: PixelRect, width: Int, height: Int) throws -> PixelBuffer {
        try ImageFile.materialise(Self.normalised(part(region, fitting: width, height)))
    }

    /// 8 MiB: what is made in memory to be shrunk in one pass.
    static let steadyLimit = 8 << 20

    static func fitted(_ image: Image, width: Int, height: Int) throws -> PixelBuffer {
        let scale = min(1, Double(width) / Double(image.width), Double(height) / Double(image.height))
        var shrunk = scale >= 1 ? image : try shrunk(image, fitting: width, height)
        if shrunk.width > width || shrunk.height > height {  // a rounding pixel
            shrunk = try shrunk.cropped(x: 0, y: 0, width: min(width, shrunk.width), height: min(height, shrunk.height))
        }
        return try ImageFile.materialise(normalised(shrunk))
    }

    /// A part or a shrink made here, normalised (`ImageFile.normalised`):
    /// as it is when it is 8-bit sRGB of three bands with no profile, as
    /// what this class holds always is (the operations would each return
    /// the same pixels, and cost a cell's drawing more than its pixels do).
    static func normalised(_ image: Image) throws -> Image {
        if image.bands == 3, image.format == VIPS_FORMAT_UCHAR, image.interpretation == VIPS_INTERPRETATION_sRGB,
           vips_image_get_typeof(image.pointer, "icc-profile-data") == 0 {
            return image
        }
        return try ImageFile.normalised(image, background: .white)
    }

    /// `image` shrunk to fit inside `width` x `height` (it is larger): in C
    /// (`vdiff_region_shrunk`, boxes of whole pixels averaged, to
    /// `fittedSize`) when it is in memory, as what it is shrunk from here
    /// always is (a kept panel, a small page) or when it holds at most
    /// `steadyLimit` bytes; else by libvips, a strip at a time.
    static func shrunk(_ image: Image, fitting width: Int, _ height: Int) throws -> Image {
        guard image.width * image.height * image.bands <= steadyLimit, image.format == VIPS_FORMAT_UCHAR else {
            let scale = min(Double(width) / Double(image.width), Double(height) / Double(image.height))
            return try image.apply(.operation, "cannot resize") { cvips_shrink($0, $1, 1 / scale, 1 / scale) }
        }
        let held = try image.inMemory(), size = fittedSize(image.width, image.height, inside: width, height)
        var out: UnsafeMutablePointer<VipsImage>?
        guard vdiff_region_shrunk(held.pointer, 0, 0, Int32(image.width), Int32(image.height), Int32(size.width),
                                  Int32(size.height), &out) == 0, let out else {
            throw VipsError.fromLibvips(.operation, "cannot resize")
        }
        return Image(owning: out)
    }
}

extension ImageFile {
    /// Decodes the whole image at its full size: upright (EXIF), from its
    /// embedded ICC profile (if any) to sRGB, alpha over white, 8 bits, 3
    /// bands, in memory. Truncated or corrupt data is an error.
    /// With `onDisc`, the picture is written to a temporary file as it is
    /// decoded and kept there (`FullPicture.onDisc`): for a pair too large
    /// to hold in memory; a file that cannot be written (a full disc) is
    /// an error that says so.
    /// A plain PNG (`plainPNG`) is decoded by CPNG unless `plainFast` is
    /// false (tests and fuzzing, which compare the two decoders).
    public static func full(descriptor: Int32, maxBuffer: Int = StructureCheck.bufferLimit,
                            onDisc: Bool = false, plainFast: Bool = true) throws -> FullPicture {
        try Vips.start()
        let structure = try StructureCheck.check(descriptor: descriptor, maxBuffer: maxBuffer)
        try refuseCameraMedia(structure)
        // A grid is decoded tile by tile for a tile, but whole here (libheif's loader): held to the buffer limit.
        if let grid = structure.heifLayout, grid.isGrid {
            let bytes = grid.width * grid.height * 4, limit = max(StructureCheck.bufferLimit, maxBuffer)
            if bytes > limit {
                throw VipsError(.tooLarge, "a heif image of \(grid.width)x\(grid.height) needs \(bytes >> 20) MiB at once, "
                                + "over the \(limit >> 20) MiB a single image may use (--decode-memory raises it)")
            }
        }
        let source = try rewound(descriptor)
        let format = try allowedFormat(source)
        if format == "png", !onDisc, plainFast, let plain = try plainPNG(descriptor, maxBuffer: maxBuffer) { return plain }
        let warnings = DecoderWarnings(loader: format)
        return try warnings.during {
            guard let raw = cvips_image_new_from_source_strict(source.pointer) else {
                throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
            }
            var image = try warnings.tagged(Image(owning: raw))
            image = try image.apply(.load, "cannot decode \(format)") { cvips_autorot($0, $1) }
            image = try normalised(image, background: .white)
            if onDisc { return try FullPicture.onDisc(image) }
            guard let copied = vips_image_copy_memory(image.pointer) else {
                throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
            }
            return FullPicture(Image(owning: copied))
        }
    }
}

extension ImageFile {
    /// A plain PNG (8-bit RGB, or RGBA all opaque, no colour chunk: what
    /// browsers write for screenshots) decoded by CPNG, whose pixels are
    /// those libvips would give, five times as fast; nil for any other PNG,
    /// which libvips then decodes (or refuses) as it always has.
    package static func plainPNG(_ descriptor: Int32, maxBuffer: Int) throws -> FullPicture? {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        switch cpng_decode_plain(descriptor, max(maxBuffer, 0), &pixels, &width, &height) {
        case 1:
            guard let pixels, let image = cvips_image_new_from_owned_rgb(pixels, Int(width) * Int(height) * 3, width,
                                                                          height, nil, 0) else {
                throw VipsError.fromLibvips(.load, "cannot decode png", loader: "png")
            }
            return FullPicture(Image(owning: image))
        case 0: return nil
        default: throw VipsError(.tooLarge, "out of memory decoding a PNG of \(width)x\(height)")
        }
    }
}

/// A picture that could not be kept on disc: its temporary file could not
/// be made or written (a full disc). Says what and where, in one line.
public struct TemporaryFileError: Error, CustomStringConvertible, Sendable {
    /// What could not be done, where, and the system's reason.
    public let description: String
}
