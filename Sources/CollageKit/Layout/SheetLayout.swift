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
