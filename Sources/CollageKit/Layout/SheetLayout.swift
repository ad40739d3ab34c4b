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
    /// True when `frames` reads nothing of the shapes but their number.
    var placesByCount: Bool { get }
    /// The frames of `shapes.count` images on `canvas`, in input order.
    func frames(for shapes: [ImageShape], on canvas: Canvas) -> [Frame]
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
    /// The image's cell: the image and the room a layout keeps around it.
    public var cell: TileRect
    /// Which part of the image is kept when it is cropped to `image`'s shape.
    public var crop: CropMode

    public init(image: TileRect, cell: TileRect? = nil, crop: CropMode = .centre) {
        self.image = image
        self.cell = cell ?? image
        self.crop = crop
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
        ("seed", { SeedLayout(crop: $0.crop) }),
    ]

    public static func named(_ name: String, _ options: LayoutOptions = LayoutOptions()) -> (any SheetLayout)? {
        registered.first { $0.name == name }.map { $0.make(options) }
    }
}

/// What the options of the command line say about layout.
public struct LayoutOptions: Equatable, Sendable {
    public var crop: CropMode = .centre

    public init() {}
}
