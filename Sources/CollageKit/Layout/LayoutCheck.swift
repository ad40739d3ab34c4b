extension CollageConfiguration {
    /// Where each image of a sheet goes: the named layout with its options,
    /// and room for the captions and the title.
    var layout: any SheetLayout {
        var options = layoutOptions
        let captions = captions
        if captions.label != nil { options.captionBand = { captions.band(forCell: $0) } }
        options.titleBand = captions.titleBand(canvasHeight: canvasHeight)
        if print.page != nil, print.exactMarginPixels > 0 {
            options.pageMargin = print.exactMarginPixels
            options.margin = LayoutOptions.wholePixels(print.exactMarginPixels)
        } else {
            options.margin = print.marginPixels
        }
        options.nominalHeight = naturalHeight ? canvasHeight : nil
        return Layouts.named(layoutName, options) ?? AutoLayout(options: options)
    }

    /// What makes this layout impossible on this canvas, before any image is
    /// read: a gap (or a caption, or a title) that leaves a cell no room.
    /// Checked for a full sheet, the one with the most cells.
    public var layoutProblem: String? {
        guard let page = print.page else { return canvasProblem }
        let margin = print.margin.map { ", --margin \($0)" } ?? ""
        return canvasProblem.map { "--page \(page) at \(print.resolution) dpi\(margin) is too small: " + $0 }
    }

    private var canvasProblem: String? {
        let margin = print.marginPixels
        guard 2 * margin < canvasWidth && 2 * margin < canvasHeight else {
            return "a margin of \(margin) pixels leaves nothing of a \(canvasWidth)x\(canvasHeight) canvas"
        }
        if let columns = layoutOptions.columns, let rows = layoutOptions.rows, maxImages > columns * rows {
            return "--max \(maxImages) does not fit --tile \(columns)x\(rows) (\(columns * rows) cells)"
        }
        guard captions.titleBand(canvasHeight: canvasHeight) < canvasHeight - 2 * margin else {
            return "--title leaves no room for the images on a \(canvasHeight)-pixel-high canvas"
        }
        let layout = layout
        // --size WIDTHx: the sheets whose height the count alone decides are checked here.
        let full = layout.canvas(for: Array(repeating: .unknown, count: effectiveCap), on: canvas)
        if naturalHeight && layout.placesByCount && full.height >= Layouts.maxNaturalHeight {
            return "--size \(canvasWidth)x: a sheet of \(effectiveCap) images would be more than "
                + "\(Layouts.maxNaturalHeight) pixels high; lower --max or give a height"
        }
        return layout.problem(count: effectiveCap, on: full)
    }
}

extension SheetLayout {
    /// A layout of cells: the gap must leave each cell a pixel, and the
    /// caption band must leave the image one.
    func cellsProblem(_ cells: Cells, on canvas: Canvas) -> String? {
        guard cells.fits else {
            return "--gap \(options.gap) leaves no room for a cell: \(cells.columns) columns and \(cells.rows) rows "
                + "on a \(canvas.width)x\(canvas.height) canvas"
        }
        if options.captionBand(cells.cellHeight) >= cells.cellHeight {
            return "--label leaves no room for the images in cells \(cells.cellHeight) pixels high; "
                + "use a smaller --font or fewer rows"
        }
        return nil
    }
}

extension SeedLayout {
    public func problem(count: Int, on canvas: Canvas) -> String? {
        cellsProblem(Self.cells(count: count, area: options.area(canvas), gap: options.gap, exact: options.exactArea(canvas)),
                     on: canvas)
    }
}

extension GridLayout {
    public func problem(count: Int, on canvas: Canvas) -> String? {
        let area = options.area(canvas)
        let (columns, rows) = shape(count: count, area: area)
        return cellsProblem(Cells(columns: columns, rows: rows, area: area, gap: options.gap, exact: options.exactArea(canvas)),
                            on: canvas)
    }
}

extension AutoLayout {
    public func problem(count: Int, on canvas: Canvas) -> String? {
        // Every sheet size it may meet: the seed grid up to six, the grid above.
        for sheet in 1...max(1, count) {
            let problem = sheet <= 6 ? SeedLayout(options: options).problem(count: sheet, on: canvas)
                                     : GridLayout(options: options).problem(count: sheet, on: canvas)
            if let problem { return problem }
        }
        return nil
    }
}

extension JustifiedLayout {
    public func problem(count: Int, on canvas: Canvas) -> String? {
        let area = options.area(canvas)
        guard 2 * options.gap < area.width && 2 * options.gap < area.height else {
            return "--gap \(options.gap) leaves no room for an image on a \(canvas.width)x\(canvas.height) canvas"
        }
        return nil
    }
}
