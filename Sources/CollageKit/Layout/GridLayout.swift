import Glibc

/// `C` columns and `R` rows of equal cells. `--tile` fixes either or both;
/// otherwise, for the `n` images of the sheet, `C` is the value in 1…n
/// that, with `R = ceil(n / C)`, makes the cell's shape `(W/C) / (H/R)`
/// closest to 4:3 (on a film's sheet, the shape of the cell's part above
/// its caption, closest to the film's: `LayoutOptions.cellShape`,
/// `aimsBelowCaptions`), measured as `|ln(shape / (4/3))|`; a tie goes to
/// more columns.
struct GridLayout: CellGrid {
    var options = LayoutOptions()

    func cells(count: Int, on canvas: Canvas) -> Cells {
        let area = options.area(canvas)
        let (columns, rows) = shape(count: count, area: area)
        return Cells(columns: columns, rows: rows, area: area, gap: options.gap, exact: options.exactArea(canvas))
    }

    /// Cells of 4:3 (`LayoutOptions.cellShape`) under their captions.
    func naturalHeight(for shapes: [ImageShape], width: Int) -> Int {
        let (columns, rows) = shape(count: shapes.count, area: TileRect(x: 0, y: 0, width: width, height: 1))
        let cell = options.cellShape
        return Cells.naturalHeight(columns: columns, rows: rows, width: width, options: options) {
            Cells.roundedQuotient($0 * cell.height, max(1, cell.width))
        }
    }

    /// The columns and rows for `count` images. With `--size WIDTHx`, the
    /// columns that would be chosen on the 3:2 canvas of that width.
    func shape(count: Int, area: TileRect) -> (columns: Int, rows: Int) {
        switch (options.columns, options.rows) {
        case let (columns?, rows?): return (columns, rows)
        case let (columns?, nil): return (columns, (count + columns - 1) / columns)
        case let (nil, rows?): return ((count + rows - 1) / rows, rows)
        case (nil, nil):
            let height = options.nominalHeight.map { max(1, $0 - options.titleBand - 2 * options.margin) } ?? area.height
            let band = options.aimsBelowCaptions ? options.captionBand : { _ in 0 }
            return Self.nearFourThree(count: count, width: area.width, height: height, aim: options.cellShape, band: band)
        }
    }

    /// `band`: the caption band of a cell of a given height, left out of
    /// the shape compared (none for photos: the contract's whole cell).
    static func nearFourThree(count: Int, width: Int, height: Int, aim: (width: Int, height: Int) = (4, 3),
                              band: (Int) -> Int = { _ in 0 }) -> (columns: Int, rows: Int) {
        let target = Double(max(1, aim.width)) / Double(max(1, aim.height))
        var best = (columns: 1, rows: count)
        var bestDistance = Double.infinity
        for columns in 1...max(1, count) {
            let rows = (count + columns - 1) / columns
            let cellHeight = Double(height) / Double(rows)
            let shown = max(1, cellHeight - Double(min(band(Int(cellHeight)), max(0, Int(cellHeight) - 1))))
            let shape = (Double(width) / Double(columns)) / shown
            let distance = abs(log(shape / target))
            // Ties (within rounding) go to more columns: later wins.
            if distance <= bestDistance + 1e-12 {
                best = (columns, rows)
                bestDistance = min(distance, bestDistance)
            }
        }
        return best
    }
}

/// The default: the seed grid for a sheet of up to six images (not a
/// film's), the near-4:3 grid above (a contact sheet of twelve on
/// 2400x1600 is 4x3 cells of 600x533, not 6x2 slivers of 400x800).
struct AutoLayout: SheetLayout {
    var options = LayoutOptions()

    var placesByCount: Bool { options.fit == .cover }

    func frames(for shapes: [ImageShape], on canvas: Canvas) -> [Frame] {
        layout(count: shapes.count).frames(for: shapes, on: canvas)
    }

    func naturalHeight(for shapes: [ImageShape], width: Int) -> Int {
        layout(count: shapes.count).naturalHeight(for: shapes, width: width)
    }

    /// The seed's grid for up to six photos; a film's sheet is always the
    /// grid of cells of its shape (the seed's tiles are 3:2 whatever the film).
    private func layout(count: Int) -> any SheetLayout {
        count <= 6 && !options.aimsBelowCaptions ? SeedLayout(options: options) : GridLayout(options: options)
    }
}
