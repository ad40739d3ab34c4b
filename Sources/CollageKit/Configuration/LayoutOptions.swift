import Vips

/// How images fill their cells.
public enum Fit: String, Sendable, CaseIterable {
    /// The image covers its cell and the overflow is cropped.
    case cover
    /// The whole image, as large as fits, centred in its cell.
    case contain
}

/// A rectangle in fractional pixels: a page's exact geometry.
struct ExactRect: Equatable, Sendable {
    let x: Double
    let y: Double
    let width: Double
    let height: Double
}

/// What the command line says about layout.
public struct LayoutOptions: Sendable {
    /// Space between cells and around the edge, in pixels.
    public var gap = 0
    /// `--fit`: cover the cell (the default) or contain the whole image.
    public var fit = Fit.cover
    /// `--crop`: which part `cover` keeps (default the centre).
    public var crop = CropMode.centre
    /// `--tile CxR`: fixed columns and/or rows (grid only).
    public var columns: Int?
    /// `--tile CxR`'s rows; nil: as many as the images need.
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
    /// The shape (width to height) the grid aims its cells at, and gives
    /// them under `--size WIDTHx`: 4:3, or on a film's sheet the film's
    /// own shape as shown.
    public var cellShape = (width: 4, height: 3)
    /// On a film's sheet: the grid aims the part of each cell above its
    /// caption band (where the frame is shown) at `cellShape`, not the
    /// whole cell, so that a frame shown whole fills its cell.
    public var aimsBelowCaptions = false
    /// `--margin`, in whole pixels: kept clear around everything, on top of the gap.
    public var margin = 0
    /// On a page: the margin in pixels as exact as its length makes it at
    /// the page's resolution (10 mm at 100 dpi: 39.37), `margin` being it
    /// rounded inward (`wholePixels`). Cells are then laid out in that exact
    /// geometry, every edge at the nearest pixel but none in the margin, so
    /// that no image pixel falls in it. nil (off a page): cells of whole
    /// pixels, as sheets have always had them.
    public var pageMargin: Double?

    /// No gap, margin or bands; `cover`, cropped at the centre; the canvas as given.
    public init() {}

    /// An exact margin in whole pixels, rounded inward (up): no pixel of
    /// the contents in it. A hair over a whole pixel (10 mm at 254 dpi is
    /// 100.000000000001) is that pixel.
    public static func wholePixels(_ exact: Double) -> Int {
        max(0, Int((exact - 1e-6).rounded(.up)))
    }

    /// The part of the canvas the cells share: all of it inside the margin but the title band.
    func area(_ canvas: Canvas) -> TileRect {
        TileRect(x: margin, y: margin + titleBand, width: max(1, canvas.width - 2 * margin),
                 height: max(1, canvas.height - 2 * margin - titleBand))
    }

    /// On a page, the same part in the page's exact geometry: inside the
    /// exact margin, below the title band (whose edge is a whole pixel).
    func exactArea(_ canvas: Canvas) -> ExactRect? {
        guard let pageMargin else { return nil }
        let top = titleBand > 0 ? Double(margin + titleBand) : pageMargin
        return ExactRect(x: pageMargin, y: top, width: Double(canvas.width) - 2 * pageMargin,
                         height: Double(canvas.height) - pageMargin - top)
    }

    /// Where the title is drawn: across the top, inside the margin.
    func titleRect(_ canvas: Canvas) -> TileRect {
        TileRect(x: margin, y: margin, width: max(1, canvas.width - 2 * margin), height: titleBand)
    }
}
