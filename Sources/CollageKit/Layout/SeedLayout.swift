import Vips

/// The first release's grid: one or two rows, every image covering its tile.
public struct SeedLayout: SheetLayout {
    public var crop: CropMode = .centre

    public init(crop: CropMode = .centre) {
        self.crop = crop
    }

    public var placesByCount: Bool { true }

    public func frames(for shapes: [ImageShape], on canvas: Canvas) -> [Frame] {
        guard !shapes.isEmpty else { return [] }
        let grid = SeedGrid(count: shapes.count, canvasWidth: canvas.width, canvasHeight: canvas.height)
        return (0..<shapes.count).map { Frame(image: grid.tile($0), crop: crop) }
    }
}

/// The arithmetic of the seed grid:
///
///     rows    = n < 3 ? 1 : 2
///     columns = round(n / rows)          (halves round away from zero)
///     tileW   = round(W / columns),  tileH = round(H / rows)
///     image i goes at x = (i % columns) * tileW,  y = (i / columns) * tileH
public struct SeedGrid: Equatable, Sendable {
    public let count: Int
    public let canvasWidth: Int
    public let canvasHeight: Int
    public let rows: Int
    public let columns: Int
    public let tileWidth: Int
    public let tileHeight: Int

    public init(count: Int, canvasWidth: Int, canvasHeight: Int) {
        precondition(count >= 1 && canvasWidth >= 1 && canvasHeight >= 1)
        self.count = count
        self.canvasWidth = canvasWidth
        self.canvasHeight = canvasHeight
        rows = count < 3 ? 1 : 2
        columns = Self.roundedQuotient(count, rows)
        // A canvas narrower than half a pixel per column would round a tile
        // to nothing; a tile is at least one pixel (then clipped).
        tileWidth = max(1, Self.roundedQuotient(canvasWidth, columns))
        tileHeight = max(1, Self.roundedQuotient(canvasHeight, rows))
    }

    /// The tile of image `index` (0-based); it may reach past the canvas by
    /// a rounding pixel, and is clipped when placed.
    public func tile(_ index: Int) -> TileRect {
        precondition(index >= 0 && index < count)
        return TileRect(x: (index % columns) * tileWidth, y: (index / columns) * tileHeight,
                        width: tileWidth, height: tileHeight)
    }

    /// round(a / b) for positive integers, halves away from zero.
    static func roundedQuotient(_ a: Int, _ b: Int) -> Int { (2 * a + b) / (2 * b) }
}
