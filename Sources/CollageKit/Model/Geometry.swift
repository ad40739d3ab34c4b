import FileFacts
import Vips

/// The canvas of one sheet, in pixels.
struct Canvas: Equatable, Sendable {
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// An image's displayed size (after EXIF orientation), all a layout reads.
struct ImageShape: Equatable, Sendable {
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init(_ header: ImageHeader) {
        self.init(width: header.displayedWidth, height: header.displayedHeight)
    }

    /// A stand-in for layouts that place by count alone.
    static let unknown = ImageShape(width: 1, height: 1)
}

/// Where one image goes on its sheet.
struct Frame: Equatable, Sendable {
    /// The rectangle the image itself covers on the canvas: its decoded
    /// size and place. It may reach past the canvas by a rounding pixel and
    /// is clipped when placed.
    var image: TileRect
    /// The image's cell: the image, its caption band and the room a layout
    /// keeps around it. Nothing of this image is drawn outside it.
    var cell: TileRect
    /// Which part of the image is kept when it is cropped to `image`'s shape.
    var crop: CropMode
    /// The band under the image for its caption, when captions are drawn.
    var caption: TileRect?

    init(image: TileRect, cell: TileRect? = nil, crop: CropMode = .centre, caption: TileRect? = nil) {
        self.image = image
        self.cell = cell ?? image
        self.crop = crop
        self.caption = caption
    }
}

/// A rectangle on a sheet's canvas, in whole pixels from its top left.
public struct TileRect: Equatable, Sendable {
    /// The left edge, in pixels from the canvas's left.
    public let x: Int
    /// The top edge, in pixels from the canvas's top.
    public let y: Int
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int

    /// The rectangle of `width` by `height` pixels whose top left is at (`x`, `y`).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

extension TileRect {
    /// The part of this rectangle inside `bounds`, at least a pixel each way
    /// (at the edge of `bounds` when none of it is inside).
    func clamped(to bounds: TileRect) -> TileRect {
        let left = min(max(x, bounds.x), bounds.x + bounds.width - 1)
        let top = min(max(y, bounds.y), bounds.y + bounds.height - 1)
        let right = max(min(x + width, bounds.x + bounds.width), left + 1)
        let bottom = max(min(y + height, bounds.y + bounds.height), top + 1)
        return TileRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
