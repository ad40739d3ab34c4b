import Vips

/// One image decoded to one tile, ready to place.
public struct DecodedTile: @unchecked Sendable {
    public let path: PathName
    public let header: ImageHeader
    public let pixels: PixelBuffer
}

/// The resize stage: libvips' thumbnail straight to the tile size. It runs
/// on a worker thread; the result carries the path for reporting.
struct Decode {
    let tileWidth: Int
    let tileHeight: Int
    let background: RGB
    /// Shared by the decodes of a run: big progressive images take turns.
    var budget: DecodeBudget? = nil

    func callAsFunction(_ image: AcceptedImage) -> Result<DecodedTile, DecodeFailure> {
        do {
            let decode = {
                try ImageFile.tile(descriptor: image.file.descriptor, width: tileWidth, height: tileHeight,
                                   background: background, header: image.header)
            }
            let pixels = try budget.map { try $0.withBudget(image.header.decodeBytes, decode) } ?? decode()
            return .success(DecodedTile(path: image.path, header: image.header, pixels: pixels))
        } catch {
            return .failure(DecodeFailure(path: image.path, message: String(describing: error)))
        }
    }
}

public struct DecodeFailure: Error, Sendable {
    public let path: PathName
    public let message: String
}
