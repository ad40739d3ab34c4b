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
struct Cells: Equatable, Sendable {
    let columns: Int
    let rows: Int
    let area: TileRect
    let gap: Int
    let cellWidth: Int
    let cellHeight: Int

    init(columns: Int, rows: Int, area: TileRect, gap: Int) {
        precondition(columns >= 1 && rows >= 1 && gap >= 0)
        self.columns = columns
        self.rows = rows
        self.area = area
        self.gap = gap
        cellWidth = max(1, Self.roundedQuotient(area.width - (columns + 1) * gap, columns))
        cellHeight = max(1, Self.roundedQuotient(area.height - (rows + 1) * gap, rows))
    }

    /// Whether every cell has room: the gaps leave at least a pixel each way.
    var fits: Bool {
        area.width - (columns + 1) * gap >= columns && area.height - (rows + 1) * gap >= rows
    }

    /// The cell of image `index`: column `index mod C`, row `index div C`.
    func cell(_ index: Int) -> TileRect {
        let column = index % columns, row = index / columns
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
