/// Checks a file's structure before libvips hands it to a decoder, where
/// the decoder would trust what the file says: libpng allocates a chunk's
/// declared length before reading it, libtiff a strip's or tile's decoded
/// size, libnsgif the logical screen, libjpeg a progressive image's every
/// coefficient. A 57-byte PNG declaring a 1 GB text chunk cost 1 GB.
///
/// A length or offset that points past the end of the file is truncated or
/// corrupt data (`VipsError.Code.load`, reported as failed); a claim of more
/// pixels than `maxPixels`, or of one buffer bigger than `bufferLimit`, is
/// too large (`.tooLarge`, rejected). Only headers and tables are read,
/// with `pread` (runs of small pieces, PNG chunks and GIF sub-blocks, in
/// blocks of 64 KiB): nothing is decoded, and nothing held but a block.
public enum StructureCheck {
    /// The most one decoder may be made to hold at once (a strip, a tile, a
    /// GIF canvas, a progressive JPEG's coefficients, an interlaced PNG):
    /// with the process itself (about 50 MB) a file cannot take a run past
    /// 200 MiB, and decodes larger than the decode budget take turns.
    public static let bufferLimit = 100 << 20

    /// What the check learnt: the largest buffer the decoder will hold
    /// because of the file's structure (0 when nothing stands out).
    public struct Summary: Sendable, Equatable {
        public var bufferBytes: Int = 0
        /// What the decoder holds at its peak where that is more than one
        /// buffer (a HEIF image's picture, planes and RGB): the budget's
        /// estimate, not a limit. 0 when `bufferBytes` says it all.
        public var decodeBytes: Int = 0
        /// What a HEIF image decoded small holds (`ImageFile.shrunkHEIF`):
        /// 0 unless every image is 8-bit HEVC and none a grid.
        public var shrunkDecodeBytes: Int = 0
        /// A HEIF photo decoded tile by tile (`HEIFLayout`): a grid of HEVC
        /// tiles, or one HEVC picture deeper than 8 bits or of HDR colour.
        public var heifLayout: HEIFLayout? = nil
        /// The format checked: given, or sniffed ("raw" and "video" too).
        public var format: String?
        /// A JPEG's size, from its frame header (0 for other formats).
        public var width = 0
        public var height = 0
    }

    /// Checks the JPEG held in `length` bytes at `offset` of the file open
    /// on `descriptor` (a RAW's embedded preview) as a file of its own: it
    /// must lie within the file and start a JPEG; its size comes from its
    /// frame header.
    public static func checkJPEG(descriptor: Int32, offset: Int, length: Int, maxPixels: Int = .max,
                                 maxBuffer: Int = bufferLimit) throws -> Summary {
        let file = try FileBytes(descriptor: descriptor)
        guard let window = file.window(offset, length) else {
            throw truncated("jpeg", "\(length) bytes at offset \(offset)", file)
        }
        var summary = try JPEGStructure.check(window, Limits(maxPixels: maxPixels, bufferBytes: max(bufferLimit, maxBuffer)))
        summary.format = "jpeg"
        return summary
    }

    /// Checks the file open on `descriptor` as `format` ("png", "tiff",
    /// as libvips names its loaders), or as what its first bytes announce.
    @discardableResult
    public static func check(descriptor: Int32, format: String? = nil, maxPixels: Int = .max,
                             maxBuffer: Int = bufferLimit) throws -> Summary {
        let file = try FileBytes(descriptor: descriptor)
        let limits = Limits(maxPixels: maxPixels, bufferBytes: max(bufferLimit, maxBuffer))
        let format = try format ?? sniff(file)
        var summary = try check(file, as: format, limits)
        summary.format = format
        return summary
    }

    private static func check(_ file: FileBytes, as format: String?, _ limits: Limits) throws -> Summary {
        switch format {
        case "png": return try PNGStructure.check(file, limits)
        case "tiff": return try TIFFStructure.check(file, limits)
        case "gif": return try GIFStructure.check(file, limits)
        case "webp": return try WebPStructure.check(file, limits)
        case "heif": return try HEIFStructure.check(file, limits)
        case "jpeg": return try JPEGStructure.check(file, limits)
        case "jxl": return try JXLStructure.check(file, limits)
        case "raw": return try RawStructure.check(file, limits)
        default: return Summary()
        }
    }
}

/// The limits one file is held to.
struct Limits {
    let maxPixels: Int
    let bufferBytes: Int

    /// Throws `.tooLarge` when `width` x `height` is over the pixel limit.
    func pixels(_ kind: String, _ width: Int, _ height: Int) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw VipsError(.tooLarge, "\(kind) claims \(width)x\(height) pixels, over --max-pixels \(maxPixels)")
        }
    }

    /// Throws `.tooLarge` when one buffer of `bytes` is over the budget.
    func buffer(_ what: String, _ bytes: Int) throws {
        if bytes > bufferBytes {
            throw VipsError(.tooLarge, "\(what) needs \(bytes >> 20) MiB at once, over the \(bufferBytes >> 20) MiB "
                            + "a single image may use (--decode-memory raises it)")
        }
    }
}

/// Multiplies sizes taken from a file without trapping on overflow.
func product(_ values: Int...) -> Int {
    var result = 1
    for value in values {
        let (next, overflow) = result.multipliedReportingOverflow(by: max(0, value))
        if overflow { return .max }
        result = next
    }
    return result
}

/// `value / divisor` rounded up, for sizes taken from a file (up to
/// `Int.max`, which `product` gives on overflow): `(value + divisor - 1) /
/// divisor` would overflow on them. `divisor` is positive.
func ceilingDivide(_ value: Int, _ divisor: Int) -> Int {
    value / divisor + (value % divisor == 0 ? 0 : 1)
}

/// The error for data that a length or offset places outside the file.
func truncated(_ format: String, _ what: String, _ file: FileBytes) -> VipsError {
    VipsError(.load, "truncated \(format): \(what) in a \(file.size)-byte file")
}

/// The error for a structure no writer makes.
func corrupt(_ format: String, _ what: String) -> VipsError {
    VipsError(.load, "corrupt \(format): \(what)")
}
