import Vips

/// How images fill their cells.
public enum Fit: String, Sendable, CaseIterable {
    /// The image covers its cell and the overflow is cropped.
    case cover
    /// The whole image, as large as fits, centred in its cell.
    case contain
}

/// What the command line says about layout.
public struct LayoutOptions: Sendable {
    /// Space between cells and around the edge, in pixels.
    public var gap = 0
    public var fit = Fit.cover
    public var crop = CropMode.centre
    /// `--tile CxR`: fixed columns and/or rows (grid only).
    public var columns: Int?
    public var rows: Int?
    /// The height of the band under each image for its caption (0: none),
    /// given the height of the cell or row it belongs to.
    public var captionBand: @Sendable (Int) -> Int = { _ in 0 }
    /// The height of the title across the top of the sheet (0: none).
    public var titleBand = 0
    /// `--size WIDTHx`: the sheet is as tall as its content (its layout's
    /// `naturalHeight`), and this is the height the layout's shape is
    /// chosen by (the grid's columns), the default canvas's 3:2. nil: the
    /// canvas is as given.
    public var nominalHeight: Int?
    /// `--margin`, in pixels: kept clear around everything, on top of the gap.
    public var margin = 0

    public init() {}

    /// The part of the canvas the cells share: all of it inside the margin but the title band.
    func area(_ canvas: Canvas) -> TileRect {
        TileRect(x: margin, y: margin + titleBand, width: max(1, canvas.width - 2 * margin),
                 height: max(1, canvas.height - 2 * margin - titleBand))
    }

    /// Where the title is drawn: across the top, inside the margin.
    func titleRect(_ canvas: Canvas) -> TileRect {
        TileRect(x: margin, y: margin, width: max(1, canvas.width - 2 * margin), height: titleBand)
    }
}
