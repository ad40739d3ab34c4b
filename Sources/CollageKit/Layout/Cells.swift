import Vips

/// `columns` x `rows` equal cells over an area, `gap` pixels between them
/// and around the edge:
///
///     cellW = round((W - (C+1)g) / C),  cellH = round((H - (R+1)g) / R)
///     cell (col, row) at x = g + col * (cellW + g),  y = g + row * (cellH + g)
///
/// With g = 0 it is the plain grid (the seed's tiles). A cell is at least
/// one pixel; one that reaches past the canvas by a rounding pixel is
/// clipped when drawn.
///
/// On a page, a margin of fractional pixels is kept clear exactly: the
/// same cells in the page's exact geometry (W, H and the area's corner in
/// fractional pixels, cellW = (W - (C+1)g) / C), every edge at the nearest
/// pixel but none outside `area` (the exact area rounded inward), so that
/// no image pixel falls in the margin. Cells then differ by a pixel at most.
struct Cells: Equatable, Sendable {
    let columns: Int
    let rows: Int
    let area: TileRect
    let gap: Int
    /// The cells' size; on a page, the smallest.
    let cellWidth: Int
    let cellHeight: Int
    /// On a page: each column's and each row's pixels.
    private let columnSpans: [Range<Int>]?
    private let rowSpans: [Range<Int>]?

    init(columns: Int, rows: Int, area: TileRect, gap: Int, exact: ExactRect? = nil) {
        precondition(columns >= 1 && rows >= 1 && gap >= 0)
        self.columns = columns
        self.rows = rows
        self.area = area
        self.gap = gap
        if let exact {
            let columnSpans = Self.spans(columns, from: exact.x, length: exact.width, gap: gap,
                                         within: area.x..<(area.x + area.width))
            let rowSpans = Self.spans(rows, from: exact.y, length: exact.height, gap: gap,
                                      within: area.y..<(area.y + area.height))
            (self.columnSpans, self.rowSpans) = (columnSpans, rowSpans)
            cellWidth = columnSpans.map(\.count).min()!
            cellHeight = rowSpans.map(\.count).min()!
        } else {
            (columnSpans, rowSpans) = (nil, nil)
            cellWidth = max(1, Self.roundedQuotient(area.width - (columns + 1) * gap, columns))
            cellHeight = max(1, Self.roundedQuotient(area.height - (rows + 1) * gap, rows))
        }
    }

    /// `count` cells of equal exact size along `length` from `start`, `gap`
    /// pixels between them and at both ends, each edge at the nearest pixel
    /// within `bounds`; a cell is at least a pixel.
    private static func spans(_ count: Int, from start: Double, length: Double, gap: Int,
                              within bounds: Range<Int>) -> [Range<Int>] {
        let size = (length - Double((count + 1) * gap)) / Double(count)
        return (0..<count).map { index in
            let low = start + Double(gap) + Double(index) * (size + Double(gap))
            let lower = min(max(Int(low.rounded()), bounds.lowerBound), bounds.upperBound - 1)
            let upper = max(min(Int((low + size).rounded()), bounds.upperBound), lower + 1)
            return lower..<upper
        }
    }

    /// Whether every cell has room: the gaps leave at least a pixel each way.
    var fits: Bool {
        area.width - (columns + 1) * gap >= columns && area.height - (rows + 1) * gap >= rows
    }

    /// The cell of image `index`: column `index mod C`, row `index div C`.
    func cell(_ index: Int) -> TileRect {
        let column = index % columns, row = index / columns
        if let columnSpans, let rowSpans, row < rowSpans.count {
            let across = columnSpans[column], down = rowSpans[row]
            return TileRect(x: across.lowerBound, y: down.lowerBound, width: across.count, height: down.count)
        }
        return TileRect(x: area.x + gap + column * (cellWidth + gap), y: area.y + gap + row * (cellHeight + gap),
                        width: cellWidth, height: cellHeight)
    }

    /// The frame of an image of `shape` in cell `index`: its caption band at
    /// the bottom of the cell, the image above it, covering that room
    /// (cropped by `crop`) or contained in it, centred.
    func frame(_ index: Int, shape: ImageShape, options: LayoutOptions) -> Frame {
        let cell = cell(index)
        let band = min(options.captionBand(cell.height), cell.height - 1)
        let room = TileRect(x: cell.x, y: cell.y, width: cell.width, height: cell.height - band)
        let caption = band > 0 ? TileRect(x: cell.x, y: cell.y + room.height, width: cell.width, height: band) : nil
        switch options.fit {
        case .cover:
            return Frame(image: room, cell: cell, crop: options.crop, caption: caption)
        case .contain:
            let scale = min(Double(room.width) / Double(shape.width), Double(room.height) / Double(shape.height))
            let width = min(room.width, max(1, Int((Double(shape.width) * scale).rounded())))
            let height = min(room.height, max(1, Int((Double(shape.height) * scale).rounded())))
            // Within a pixel of its room's shape (a film's frame in a cell
            // of that shape, rounded): it fills the room, a pixel cropped
            // rather than a pixel's band of background left beside it.
            if room.width - width <= 1 && room.height - height <= 1 {
                return Frame(image: room, cell: cell, crop: .centre, caption: caption)
            }
            let image = TileRect(x: room.x + (room.width - width) / 2, y: room.y + (room.height - height) / 2,
                                 width: width, height: height)
            return Frame(image: image, cell: cell, crop: .centre, caption: caption)
        }
    }

    /// round(a / b) for positive b, halves away from zero.
    static func roundedQuotient(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? (2 * a + b) / (2 * b) : -((-2 * a + b) / (2 * b))
    }
}

extension Cells {
    /// `--size WIDTHx`: the canvas height that gives each of `rows` rows of
    /// `columns` cells over `width` an image `imageHeight(cellWidth)` high
    /// above its caption band, with the title and the gaps.
    static func naturalHeight(columns: Int, rows: Int, width: Int, options: LayoutOptions,
                              imageHeight: (Int) -> Int) -> Int {
        let gap = options.gap
        let cellWidth = max(1, roundedQuotient(width - 2 * options.margin - (columns + 1) * gap, columns))
        let image = max(1, imageHeight(cellWidth))
        // The band follows the cell's height: the smallest cell that leaves the image its height.
        var cell = image + options.captionBand(image)
        while cell - min(options.captionBand(cell), cell - 1) < image { cell += 1 }
        return 2 * options.margin + options.titleBand + rows * cell + (rows + 1) * gap
    }
}
