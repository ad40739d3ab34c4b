import Glibc
import Vips

/// One image decoded to one tile, ready to place.
public struct DecodedTile: @unchecked Sendable {
    public let path: PathName
    public let header: ImageHeader
    public let pixels: PixelBuffer
    /// The file the header was read from, still open: a smaller last sheet
    /// decodes it again at its own tile size from the same bytes. nil when
    /// the sheet is too large to keep a descriptor per image.
    let file: OpenFile?
}

/// The resize stage: libvips' thumbnail straight to the tile size. It runs
/// on a worker thread; the result carries the path for reporting.
struct Decode {
    let tileWidth: Int
    let tileHeight: Int
    let background: RGB
    /// Shared by the decodes of a run: at most `jobs` run, and big
    /// progressive images take turns.
    var budget: DecodeBudget? = nil
    /// Counts the decodes running (inside the budget, so a decode waiting
    /// for memory is not counted as running).
    var instrumentation: RunInstrumentation? = nil
    /// Whether the tile keeps its image's file open (see `DecodedTile.file`).
    var keepsFile = true

    func callAsFunction(_ image: AcceptedImage) -> Result<DecodedTile, DecodeFailure> {
        do {
            let decode = {
                try (instrumentation?.decoding ?? { try $0() }) {
                    try ImageFile.tile(descriptor: image.file.descriptor, width: tileWidth, height: tileHeight,
                                       background: background, header: image.header)
                }
            }
            let pixels = try budget.map { try $0.withBudget(image.header.decodeBytes, decode) } ?? decode()
            return .success(DecodedTile(path: image.path, header: image.header, pixels: pixels,
                                        file: keepsFile ? image.file : nil))
        } catch {
            return .failure(DecodeFailure(path: image.path, message: String(describing: error)))
        }
    }
}

public struct DecodeFailure: Error, Sendable {
    public let path: PathName
    public let message: String
}

extension Decode {
    /// Whether `count` images can each keep a file open without running out
    /// of descriptors (a --max in the thousands could).
    static func canKeepFiles(_ count: Int) -> Bool {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        return limit.rlim_cur == rlim_t.max || UInt64(count) * 2 + 64 <= UInt64(limit.rlim_cur)
    }
}
