import Vips

/// The values of the command line's options as a program embedding
/// CollageKit gives them: each parsed from its text once, `nil` when the
/// text is not one (the command line says why in its usage line).

/// `--size WxH`: the canvas in pixels, each side 1 to 65500.
public struct CanvasSize: Sendable, Equatable {
    /// The canvas's width in pixels.
    public let width: Int
    /// nil for `WIDTHx`: each sheet as tall as its content.
    public let height: Int?

    /// "1200x800", or "1200x" (no height: as tall as the content).
    public init?(_ text: String) {
        if let (width, height) = OptionValues.size(text) {
            (self.width, self.height) = (width, height)
        } else if text.lowercased().hasSuffix("x"), let (width, _) = OptionValues.size(text + "1") {
            (self.width, self.height) = (width, nil)
        } else {
            return nil
        }
    }

    /// 1200x800, the seed's canvas.
    public static let `default` = CanvasSize(width: 1200, height: 800)

    init(width: Int, height: Int?) {
        (self.width, self.height) = (width, height)
    }

    /// The height a sheet `width` wide is laid out by when it is as tall as
    /// its content: the default canvas's 3:2 (its title's size, the grid's
    /// choice of columns).
    public static func nominalHeight(width: Int) -> Int { max(1, (width * 2 + 1) / 3) }
}

/// `--tile CxR`: fixed columns and/or rows of the grid.
public struct GridShape: Sendable, Equatable {
    /// The grid's columns; nil for `xR`: as many as the images need.
    public let columns: Int?
    /// The grid's rows; nil for `Cx`: as many as the images need.
    public let rows: Int?

    /// "4x3", "4x" or "x3", each side 1 to 10000.
    public init?(_ text: String) {
        guard let (columns, rows) = OptionValues.tile(text) else { return nil }
        (self.columns, self.rows) = (columns, rows)
    }

    /// The cells of a grid that fixes both sides.
    public var cells: Int? { columns.flatMap { columns in rows.map { columns * $0 } } }
}

/// `--background`: a name, `#rgb`, `#rrggbb` or `r,g,b`.
public struct Colour: Sendable, Equatable {
    let rgb: RGB

    /// "white", "black", "grey" (and a few other names), "#rgb", "#rrggbb" or "r,g,b", in any case.
    public init?(_ text: String) {
        guard let rgb = OptionValues.colour(text) else { return nil }
        self.rgb = rgb
    }

    /// White, the default background.
    public static let white = Colour(rgb: .white)

    init(rgb: RGB) {
        self.rgb = rgb
    }
}

/// `--crop`: which part `cover` keeps.
public enum CropChoice: String, Sendable, CaseIterable {
    /// The centre of the image (the default).
    case centre
    /// What libvips' smart crop finds most interesting.
    case attention
    /// What libvips' entropy crop finds most interesting (the most detail).
    case entropy
    /// The faces the photo's XMP marks; as `attention` when it marks none.
    case faces

    /// Also takes `center`.
    public init?(_ text: String) {
        guard let mode = OptionValues.crop(text) else { return nil }
        self.init(rawValue: mode.rawValue)
    }

    var mode: CropMode { CropMode(rawValue: rawValue) ?? .centre }
}

/// `--font`: a font description that names an installed font.
public struct FontChoice: Sendable, Equatable {
    /// The description as given ("DejaVu Sans 14").
    public let description: String
    /// The size it names, if any.
    public let size: Int?

    /// Throws the line that says why the font cannot be used.
    public init(_ text: String) throws(FontProblem) {
        if case .failure(let error) = TextRenderer.resolveFont(text) { throw FontProblem(message: "\(error)") }
        description = text
        size = TextRenderer.size(of: text)
    }
}

/// Why a `--font` cannot be used: the description does not parse, or the
/// font it names is not installed.
public struct FontProblem: Error, Sendable, CustomStringConvertible {
    /// The line that says why, as the command line prints it.
    public let message: String
    public var description: String { message }
}

extension CollageConfiguration {
    /// `--background`.
    public var backgroundColour: Colour {
        get { Colour(rgb: background) }
        set { background = newValue.rgb }
    }

    /// `--crop`.
    public var crop: CropChoice {
        get { CropChoice(rawValue: layoutOptions.crop.rawValue) ?? .centre }
        set { layoutOptions.crop = newValue.mode }
    }

    /// `--font`: the captions' and titles' font, and its size if it names one.
    public var font: FontChoice? {
        get { captions.font.flatMap { try? FontChoice($0) } }
        set {
            captions.font = newValue?.description
            captions.fontSize = newValue?.size
        }
    }
}
