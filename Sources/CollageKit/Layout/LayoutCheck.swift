extension CollageConfiguration {
    /// What makes this layout impossible on this canvas, before any image is
    /// read: a gap (or a caption, or a title) that leaves a cell no room.
    /// Checked for a full sheet, the one with the most cells.
    public var layoutProblem: String? {
        let options = layout.options
        let cap = effectiveCap
        let area = options.area(canvas)
        if let columns = layoutOptions.columns, let rows = layoutOptions.rows, maxImages > columns * rows {
            return "--max \(maxImages) does not fit --tile \(columns)x\(rows) (\(columns * rows) cells)"
        }
        guard captions.titleBand(canvasHeight: canvasHeight) < canvasHeight else {
            return "--title leaves no room for the images on a \(canvasHeight)-pixel-high canvas"
        }
        let cells: Cells
        switch layoutName {
        case "justified":
            guard 2 * options.gap < area.width && 2 * options.gap < area.height else {
                return "--gap \(options.gap) leaves no room for an image on a \(canvasWidth)x\(canvasHeight) canvas"
            }
            return nil
        case "seed":
            cells = SeedLayout.cells(count: cap, area: area, gap: options.gap)
        case "grid":
            let (columns, rows) = GridLayout(options: options).shape(count: cap, area: area)
            cells = Cells(columns: columns, rows: rows, area: area, gap: options.gap)
        default:
            let (columns, rows) = cap <= 6 ? (SeedLayout.cells(count: cap, area: area, gap: 0).columns,
                                              SeedLayout.cells(count: cap, area: area, gap: 0).rows)
                                           : GridLayout(options: options).shape(count: cap, area: area)
            cells = Cells(columns: columns, rows: rows, area: area, gap: options.gap)
        }
        guard cells.fits else {
            return "--gap \(options.gap) leaves no room for a cell: \(cells.columns) columns and \(cells.rows) rows "
                + "on a \(canvasWidth)x\(canvasHeight) canvas"
        }
        if captions.label != nil, captions.band(forCell: cells.cellHeight) >= cells.cellHeight {
            return "--label leaves no room for the images in cells \(cells.cellHeight) pixels high; "
                + "use a smaller --font or fewer rows"
        }
        return nil
    }
}
