import Vips

/// The layout seam: a layout turns one sheet's images (their displayed
/// shapes, read from headers) and the canvas into frames, one per image:
/// where the image goes, the size it is decoded to, and how it is cropped.
///
/// How a layout meets the demand-driven flow:
///
/// - A layout whose frames depend on the number of images alone
///   (`placesByCount`) lets decoding run ahead of the sheet: each image is
///   decoded to its slot's frame in a full sheet as soon as it is accepted,
///   so the decoders never wait for a sheet to be cut. If the sheet turns
///   out shorter (the last one, or a decode failed and the next image took
///   the slot), the composer asks the layout again for the real count and
///   decodes again only the images whose frame changed.
/// - A layout that needs the shapes of the whole sheet (rows of whole
///   images, letterboxed cells) cannot place an image before the sheet's
///   other images are known. Headers are cheap (the probe has read them
///   upstream and holds each accepted file open), so the sheet is cut on
///   headers first, at most `--max` open files, then each image is decoded
///   straight to its frame. An image that then fails to decode is reported
///   and the sheet is laid out again without it (no image from the next
///   sheet takes its place, so the cut never depends on decoding); the
///   others are decoded again only where their frame changed.
protocol SheetLayout: Sendable {
    /// The gap, fit, crop, tile and bands it was made with.
    var options: LayoutOptions { get }
    /// True when `frames` reads nothing of the shapes but their number.
    var placesByCount: Bool { get }
    /// The frames of `shapes.count` images on `canvas`, in input order.
    func frames(for shapes: [ImageShape], on canvas: Canvas) -> [Frame]
    /// With `--size WIDTHx` (`options.nominalHeight` set): the height of a
    /// canvas `width` wide that holds `shapes` at their natural size, title,
    /// captions and gaps included.
    func naturalHeight(for shapes: [ImageShape], width: Int) -> Int
    /// Why sheets of up to `count` images cannot be laid out on `canvas`
    /// (a gap or a band that leaves no room), checked before any image is
    /// read; nil when they can.
    func problem(count: Int, on canvas: Canvas) -> String?
}

extension SheetLayout {
    /// The canvas a sheet of `shapes` is drawn on: `canvas` itself, or with
    /// `--size WIDTHx` one as wide and as tall as the sheet's content (at
    /// most `Layouts.maxNaturalHeight`).
    func canvas(for shapes: [ImageShape], on canvas: Canvas) -> Canvas {
        guard options.nominalHeight != nil, !shapes.isEmpty else { return canvas }
        return Canvas(width: canvas.width,
                      height: max(1, min(naturalHeight(for: shapes, width: canvas.width), Layouts.maxNaturalHeight)))
    }

    /// A sheet of `shapes`: its canvas and the frames on it.
    func layOut(_ shapes: [ImageShape], on canvas: Canvas) -> (canvas: Canvas, frames: [Frame]) {
        let sheet = self.canvas(for: shapes, on: canvas)
        return (sheet, frames(for: shapes, on: sheet))
    }
}

/// A layout of equal cells (the seed's, the grid): a sheet's frames are
/// its cells, which depend on the number of images alone, so it places by
/// count wherever each image covers its cell.
protocol CellGrid: SheetLayout {
    /// The cells of a sheet of `count` images on `canvas`.
    func cells(count: Int, on canvas: Canvas) -> Cells
}

extension CellGrid {
    var placesByCount: Bool { options.fit == .cover }

    func frames(for shapes: [ImageShape], on canvas: Canvas) -> [Frame] {
        guard !shapes.isEmpty else { return [] }
        let cells = self.cells(count: shapes.count, on: canvas)
        return shapes.indices.map { cells.frame($0, shape: shapes[$0], options: options) }
    }
}

/// The layouts by name, as `--layout` takes them. A new layout is one type
/// conforming to `SheetLayout` and one line here.
public enum Layouts {
    /// Each layout's name and how to make it from the options, `auto` first.
    static let registered: [(name: String, make: @Sendable (LayoutOptions) -> any SheetLayout)] = [
        ("auto", { AutoLayout(options: $0) }),
        ("seed", { SeedLayout(options: $0) }),
        ("grid", { GridLayout(options: $0) }),
        ("justified", { JustifiedLayout(options: $0) }),
    ]

    /// The names `--layout` takes: auto, seed, grid, justified.
    public static var names: [String] { registered.map(\.name) }

    /// The tallest sheet `--size WIDTHx` makes, as `--size` takes: a taller
    /// content (rows of tall portraits) is scaled down to fit.
    static let maxNaturalHeight = 65_500

    /// The layout `name` made with `options`; nil for a name not registered.
    static func named(_ name: String, _ options: LayoutOptions = LayoutOptions()) -> (any SheetLayout)? {
        registered.first { $0.name == name }.map { $0.make(options) }
    }
}
