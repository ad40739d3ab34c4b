import Vips

/// What a composed sheet is made of for its file: the encoded picture of
/// the whole sheet, or (`-o NAME.pdf`) a page to draw.
enum SheetPicture: Sendable {
    case image(EncodedImage)
    case page(PrintedPage)

    /// The bytes it adds to its file (a page: its pictures').
    var byteCount: Int {
        switch self {
        case .image(let encoded): encoded.count
        case .page(let page): page.pictures.reduce(0) { $0 + $1.jpeg.count }
        }
    }
}

/// A sheet as a PDF page, in the canvas's pixels: each tile's own JPEG
/// where it goes, and the text of the captions and the title where each is
/// drawn. The Save layer draws it; nothing here knows the PDF library.
struct PrintedPage: Sendable {
    struct Picture: Sendable {
        let jpeg: EncodedImage
        let rect: TileRect
    }

    struct Text: Sendable {
        let text: String
        let rect: TileRect
        /// The text's size in pixels of the canvas.
        let size: Int
    }

    let canvas: Canvas
    /// The page's size in points: the paper's (A4: 595.28x841.89), or the canvas at the resolution.
    let width: Double
    let height: Double
    let background: RGB
    let ink: RGB
    let font: String
    var pictures: [Picture] = []
    var texts: [Text] = []
}

extension SheetComposer {
    /// The page of a sheet whose tiles are placed by `frames`: each tile
    /// encoded as a JPEG of its own (at the sheet's resolution, with
    /// `--quality`), the captions and title kept as text.
    func page(_ tiles: [DecodedTile], frames: [Frame], labels: [String]?, title: String?,
              sheet: Int, on canvas: Canvas) throws -> (PrintedPage, notices: [String]) {
        let size = paper.map { ($0.width / 25.4 * 72, $0.height / 25.4 * 72) }
            ?? (Double(canvas.width) * 72 / Double(dpi), Double(canvas.height) * 72 / Double(dpi))
        var page = PrintedPage(canvas: canvas, width: size.0, height: size.1, background: background,
                               ink: Captions.ink(on: background), font: captions.fontDescription)
        for (tile, frame) in zip(tiles, frames) {
            page.pictures.append(.init(jpeg: try Encoder.encode(tile.pixels, suffix: suffix, dpi: dpi), rect: frame.image))
        }
        let notices = try draw(labels: labels, paths: tiles.map(\.path), frames: frames, title: title, sheet: sheet) {
            text, band, size in
            page.texts.append(.init(text: text, rect: band, size: size))
            return TextRenderer.missingCharacters(text, font: captions.fontDescription, pixelSize: size)
        }
        return (page, notices)
    }
}
