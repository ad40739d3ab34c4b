internal import CVipsShim
import FileFacts

/// A picture decoded whole, at its full size (never a thumbnail), upright,
/// colour-managed to 8-bit sRGB with its alpha composited on white, held in
/// memory: what `--diff` compares.
public final class FullPicture: @unchecked Sendable {  // a libvips memory image, only read once made
    let image: Image

    init(_ image: Image) {
        self.image = image
    }

    public var width: Int { image.width }
    public var height: Int { image.height }
    /// The bytes it holds.
    public var byteCount: Int { image.width * image.height * image.bands }

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
        try Self.fitted(image, width: width, height: height)
    }

    /// The part `region` of the picture (outside it, white), shrunk to fit
    /// inside `width` x `height` (never enlarged).
    public func fitted(region: PixelRect, width: Int, height: Int) throws -> PixelBuffer {
        try Self.fitted(image.embedded(x: -region.x, y: -region.y, width: region.width, height: region.height,
                                       copyEdge: false, background: 255), width: width, height: height)
    }

    static func fitted(_ image: Image, width: Int, height: Int) throws -> PixelBuffer {
        let scale = min(1, Double(width) / Double(image.width), Double(height) / Double(image.height))
        var shrunk = scale >= 1 ? image : try image.apply(.operation, "cannot resize") {
            cvips_shrink($0, $1, 1 / scale, 1 / scale)
        }
        if shrunk.width > width || shrunk.height > height {  // a rounding pixel
            shrunk = try shrunk.cropped(x: 0, y: 0, width: min(width, shrunk.width), height: min(height, shrunk.height))
        }
        return try ImageFile.materialise(ImageFile.normalised(shrunk, background: .white))
    }
}

extension ImageFile {
    /// Decodes the whole image at its full size: upright (EXIF), from its
    /// embedded ICC profile (if any) to sRGB, alpha over white, 8 bits, 3
    /// bands, in memory. Truncated or corrupt data is an error.
    public static func full(descriptor: Int32, maxBuffer: Int = StructureCheck.bufferLimit) throws -> FullPicture {
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
        let warnings = DecoderWarnings(loader: format)
        return try warnings.during {
            guard let raw = cvips_image_new_from_source_strict(source.pointer) else {
                throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
            }
            var image = try warnings.tagged(Image(owning: raw))
            image = try image.apply(.load, "cannot decode \(format)") { cvips_autorot($0, $1) }
            image = try normalised(image, background: .white)
            guard let copied = vips_image_copy_memory(image.pointer) else {
                throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
            }
            return FullPicture(Image(owning: copied))
        }
    }
}
