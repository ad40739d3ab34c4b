import Vips

/// The first release's grid: one row for one or two images, two rows
/// above, every image covering its tile:
///
///     rows    = n < 3 ? 1 : 2
///     columns = round(n / rows)          (halves round away from zero)
struct SeedLayout: CellGrid {
    var options = LayoutOptions()

    func cells(count: Int, on canvas: Canvas) -> Cells {
        Self.cells(count: count, area: options.area(canvas), gap: options.gap, exact: options.exactArea(canvas))
    }

    /// The seed's tiles keep the shape they have on a 3:2 canvas of this width.
    func naturalHeight(for shapes: [ImageShape], width: Int) -> Int {
        let rows = shapes.count < 3 ? 1 : 2, columns = Cells.roundedQuotient(shapes.count, rows)
        return Cells.naturalHeight(columns: columns, rows: rows, width: width, options: options) {
            Cells.roundedQuotient($0 * 2 * columns, 3 * rows)
        }
    }

    static func cells(count: Int, area: TileRect, gap: Int, exact: ExactRect? = nil) -> Cells {
        let rows = count < 3 ? 1 : 2
        return Cells(columns: Cells.roundedQuotient(count, rows), rows: rows, area: area, gap: gap, exact: exact)
    }
}

/// The seed grid's arithmetic on a plain canvas (no gap, no caption).
struct SeedGrid: Equatable, Sendable {
    let count: Int
    let canvasWidth: Int
    let canvasHeight: Int
    let rows: Int
    let columns: Int
    let tileWidth: Int
    let tileHeight: Int
    private let cells: Cells

    init(count: Int, canvasWidth: Int, canvasHeight: Int) {
        precondition(count >= 1 && canvasWidth >= 1 && canvasHeight >= 1)
        self.count = count
        self.canvasWidth = canvasWidth
        self.canvasHeight = canvasHeight
        cells = SeedLayout.cells(count: count, area: TileRect(x: 0, y: 0, width: canvasWidth, height: canvasHeight),
                                 gap: 0)
        rows = cells.rows
        columns = cells.columns
        tileWidth = cells.cellWidth
        tileHeight = cells.cellHeight
    }

    /// The tile of image `index` (0-based).
    func tile(_ index: Int) -> TileRect {
        precondition(index >= 0 && index < count)
        return cells.cell(index)
    }

    static func roundedQuotient(_ a: Int, _ b: Int) -> Int { Cells.roundedQuotient(a, b) }
}
