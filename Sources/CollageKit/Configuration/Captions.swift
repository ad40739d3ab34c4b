import FileFacts
import Glibc
import Vips

/// What the captions and the title say and how large they are drawn.
public struct Captions: Equatable, Sendable {
    /// `--label`: one line under each image.
    public var label: Template?
    /// `--title`: one line across the top of each sheet.
    public var title: Template?
    /// `--font`: a font description; without a size, the size follows the cell.
    public var font: String?
    /// The size the description names, in pixels (points at 72 dpi).
    public var fontSize: Int?
    /// Pixels per point: 1 on a screen; on a page (`--page`) the resolution
    /// over 72, so that `--font`'s size is in points and the sizes that
    /// follow the cell are those of print (captions 7 to 10 pt, titles 12 to 16 pt).
    public var pixelsPerPoint = 1.0
    /// `{group}`: the name of the group being made (`--group-by`).
    var group: String?
    /// `--frames`: the film whose sheet this is (the title's header fields).
    var film: FilmHeader?
    /// `--pick`: `{stack}`, how many photos each picked one stands for.
    var stacks: StackSizes?

    /// No label, no title, the default font at the cell's size, on a screen.
    public init() {}

    /// `points` at the sheet's resolution, in whole pixels.
    func pixels(points: Double) -> Int { Int((points * pixelsPerPoint).rounded()) }

    /// The font drawn when `--font` names none.
    static let defaultFont = "DejaVu Sans"

    var fontDescription: String { font ?? Self.defaultFont }

    /// The caption's text size in a cell (or row) `height` pixels high:
    /// `--font`'s size if it has one, else about a fourteenth of the cell,
    /// so it stays readable from 200-pixel cells to 800-pixel ones.
    func pixelSize(forCell height: Int) -> Int {
        if let fontSize { return pixels(points: Double(fontSize)) }
        guard pixelsPerPoint == 1 else { return min(pixels(points: 10), max(pixels(points: 7), (height + 7) / 14)) }
        return min(28, max(10, (height + 7) / 14))
    }

    /// The band a caption needs under its image.
    func band(forCell height: Int) -> Int {
        guard label != nil else { return 0 }
        return band(forSize: pixelSize(forCell: height))
    }

    /// The title's band at the top of a sheet `canvasHeight` pixels high.
    func titleBand(canvasHeight: Int) -> Int {
        guard title != nil else { return 0 }
        return band(forSize: titleSize(canvasHeight: canvasHeight))
    }

    func titleSize(canvasHeight: Int) -> Int {
        if let fontSize { return pixels(points: Double(fontSize * 5 / 4)) }
        guard pixelsPerPoint == 1 else { return min(pixels(points: 16), max(pixels(points: 12), canvasHeight / 30)) }
        return min(40, max(12, canvasHeight / 30))
    }

    /// A line of text `size` pixels high, ascenders to descenders, and a margin.
    func band(forSize size: Int) -> Int { TextRenderer.lineHeight(font: fontDescription, pixelSize: size) + 4 }

    /// The largest text whose band fits in `height` (a layout may give a
    /// band of its own size): what is drawn in it.
    func size(forBand height: Int) -> Int {
        var low = 4, high = max(4, fontSize.map { pixels(points: Double($0)) } ?? Int(200 * pixelsPerPoint))
        while low < high {
            let middle = (low + high + 1) / 2
            if band(forSize: middle) <= height { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Black on a light background, white on a dark one.
    static func ink(on background: RGB) -> RGB {
        let luminance = 0.2126 * Double(background.red) + 0.7152 * Double(background.green) + 0.0722 * Double(background.blue)
        return luminance > 140 ? .black : .white
    }
}

extension Captions {
    /// The caption of an image: `--label` with its fields filled in.
    /// `index` is its 1-based place among the images the run used; `pair`,
    /// a `--diff` cell's pair (its `{path}` is the path below the roots).
    func labelText(path: PathName, header: ImageHeader, index: Int, pair: ComparedPair? = nil,
                   time: Double? = nil) -> String? {
        let members = pair?.members ?? 1
        let moved = pair.map(\.shifts).flatMap { $0.isEmpty ? nil : $0 }.map { shifts in
            " · " + DiffText.shifts(shifts)
        } ?? ""
        return label.map { template in
            (members > 1 ? "same change in \(members) screenshots · " : "") +
            template.render { field in
                if let pair {
                    switch field {
                    case "path": return pair.relative.description
                    case "pixels": return String(pair.pixels)
                    case "percent": return DiffText.percent(pair.percent)
                    case "status": return pair.status.rawValue
                    case "width": return String(pair.shape.width)
                    case "height": return String(pair.shape.height)
                    case "format", "date", "duration", "group", "rating", "label", "camera", "lens", "focal", "aperture",
                         "shutter", "iso", "stack": return ""
                    default: break
                    }
                }
                return switch field {
                case "name": String(decoding: path.lastComponent, as: UTF8.self)
                case "stem": Self.split(path.lastComponent).stem
                case "ext": Self.split(path.lastComponent).ext
                case "dir": String(decoding: path.folderName, as: UTF8.self)
                case "path": path.description
                case "index": String(index)
                case "width": String(header.displayedWidth)
                case "height": String(header.displayedHeight)
                case "format": header.format
                case "date": header.dateTaken
                case "duration": header.duration.map(Self.clock) ?? ""
                case "group": group ?? ""
                case "pixels", "percent", "status": ""
                case "time": time.map(Self.clock) ?? ""
                case "rating": Self.stars(header.rating)
                case "label": header.label ?? ""
                case "camera": header.camera?.cameraText ?? ""
                case "lens": header.camera?.lensText ?? ""
                case "focal": header.camera?.focalText ?? ""
                case "aperture": header.camera?.apertureText ?? ""
                case "shutter": header.camera?.shutterText ?? ""
                case "iso": header.camera?.isoText ?? ""
                case "stack": stacks?.label(path) ?? ""
                default: nil
                }
            } + moved
        }
    }

    /// The title of sheet `sheet`: `--title` with its fields filled in (a
    /// film's header fields empty on a sheet that is not a film's).
    func titleText(sheet: Int, images: [PathName]) -> String? {
        title.map { template in
            template.render { field in
                switch field {
                case "sheet": String(sheet)
                case "count": String(images.count)
                case "first": images.first.map { String(decoding: $0.lastComponent, as: UTF8.self) }
                case "last": images.last.map { String(decoding: $0.lastComponent, as: UTF8.self) }
                case "date": Self.today()
                case "group": group ?? ""
                default: film?.field(field) ?? ""
                }
            }
        }
    }

    /// "photo.2026.jpg" → ("photo.2026", "jpg"); a leading dot is not an extension.
    static func split(_ name: [UInt8]) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else {
            return (String(decoding: name, as: UTF8.self), "")
        }
        return (String(decoding: name[..<dot], as: UTF8.self), String(decoding: name[(dot + 1)...], as: UTF8.self))
    }

    /// `{rating}`: filled stars for the rating out of five ("★★★☆☆"),
    /// "rejected" for -1, empty when unrated.
    static func stars(_ rating: Int?) -> String {
        guard let rating else { return "" }
        if rating < 0 { return "rejected" }
        let filled = min(rating, 5)
        return String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled)
    }

    /// A video's length as a clock: "0:42", "1:02:03" (whole seconds).
    static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds.rounded())) : 0
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }

    /// Today's date, local time, YYYY-MM-DD.
    static func today() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }
}
