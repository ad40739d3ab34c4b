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
public protocol SheetLayout: Sendable {
    /// The gap, fit, crop, tile and bands it was made with.
    var options: LayoutOptions { get }
    /// True when `frames` reads nothing of the shapes but their number.
    var placesByCount: Bool { get }
    /// The frames of `shapes.count` images on `canvas`, in input order.
    func frames(for shapes: [ImageShape], on canvas: Canvas) -> [Frame]
    /// Why sheets of up to `count` images cannot be laid out on `canvas`
    /// (a gap or a band that leaves no room), checked before any image is
    /// read; nil when they can.
    func problem(count: Int, on canvas: Canvas) -> String?
}

/// The canvas of one sheet, in pixels.
public struct Canvas: Equatable, Sendable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// An image's displayed size (after EXIF orientation), all a layout reads.
public struct ImageShape: Equatable, Sendable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public init(_ header: ImageHeader) {
        self.init(width: header.displayedWidth, height: header.displayedHeight)
    }

    /// A stand-in for layouts that place by count alone.
    static let unknown = ImageShape(width: 1, height: 1)
}

/// Where one image goes on its sheet.
public struct Frame: Equatable, Sendable {
    /// The rectangle the image itself covers on the canvas: its decoded
    /// size and place. It may reach past the canvas by a rounding pixel and
    /// is clipped when placed.
    public var image: TileRect
    /// The image's cell: the image, its caption band and the room a layout
    /// keeps around it. Nothing of this image is drawn outside it.
    public var cell: TileRect
    /// Which part of the image is kept when it is cropped to `image`'s shape.
    public var crop: CropMode
    /// The band under the image for its caption, when captions are drawn.
    public var caption: TileRect?

    public init(image: TileRect, cell: TileRect? = nil, crop: CropMode = .centre, caption: TileRect? = nil) {
        self.image = image
        self.cell = cell ?? image
        self.crop = crop
        self.caption = caption
    }
}

public struct TileRect: Equatable, Sendable {
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The layouts by name, as `--layout` takes them. A new layout is one type
/// conforming to `SheetLayout` and one line here.
public enum Layouts {
    public static let registered: [(name: String, make: @Sendable (LayoutOptions) -> any SheetLayout)] = [
        ("auto", { AutoLayout(options: $0) }),
        ("seed", { SeedLayout(options: $0) }),
        ("grid", { GridLayout(options: $0) }),
        ("justified", { JustifiedLayout(options: $0) }),
    ]

    public static var names: [String] { registered.map(\.name) }

    public static func named(_ name: String, _ options: LayoutOptions = LayoutOptions()) -> (any SheetLayout)? {
        registered.first { $0.name == name }.map { $0.make(options) }
    }
}

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

    public init() {}

    /// The part of the canvas the cells share: all of it but the title band.
    func area(_ canvas: Canvas) -> TileRect {
        TileRect(x: 0, y: titleBand, width: canvas.width, height: max(1, canvas.height - titleBand))
    }
}
