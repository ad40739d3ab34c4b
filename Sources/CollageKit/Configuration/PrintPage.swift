/// `--page`, `--dpi`, `--margin`: sheets for print. A page is a physical
/// size; the canvas is that size in pixels at the resolution, and every
/// written image records the resolution so that it prints at its size.

/// A length on paper: `10mm`, `0.5in`, `24pt`, or `12px` (pixels at the
/// run's resolution). Kept in millimetres, or pixels.
public struct PrintLength: Sendable, Equatable, CustomStringConvertible {
    /// Millimetres, or nil for a length in pixels.
    let millimetres: Double?
    let pixels: Int

    /// "10mm", "1.5cm", "0.5in", "24pt", "12px"; at least 0, at most a metre.
    public init?(_ text: String) {
        let lowered = text.lowercased()
        for (unit, perUnit) in [("mm", 1.0), ("cm", 10.0), ("in", 25.4), ("pt", 25.4 / 72)] where lowered.hasSuffix(unit) {
            guard let value = PrintLength.number(lowered.dropLast(2)), value * perUnit <= 1000 else { return nil }
            (millimetres, pixels, description) = (value * perUnit, 0, text)
            return
        }
        guard lowered.hasSuffix("px"), let value = Int(lowered.dropLast(2)), (0...65_500).contains(value) else { return nil }
        (millimetres, pixels, description) = (nil, value, text)
    }

    public let description: String

    init(millimetres: Double) {
        (self.millimetres, pixels, description) = (millimetres, 0, "\(millimetres)mm")
    }

    /// The length in whole pixels at `dpi`, rounded to the nearest.
    public func pixels(at dpi: Int) -> Int {
        guard millimetres != nil else { return pixels }
        return Int(exactPixels(at: dpi).rounded())
    }

    /// The length in pixels at `dpi`, as exact as it is (10 mm at 100 dpi: 39.37).
    public func exactPixels(at dpi: Int) -> Double {
        guard let millimetres else { return Double(pixels) }
        return millimetres / 25.4 * Double(dpi)
    }

    /// A plain decimal number, at least 0 ("12", "0.5", ".5"): no sign, no exponent, no "nan".
    static func number(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              text.filter({ $0 == "." }).count <= 1, text != "." else { return nil }
        return Double(text)
    }
}

/// `--page NAME[:landscape]` or `WxH` with a unit (`210x297mm`, `8.5x11in`).
public struct PageSize: Sendable, Equatable, CustomStringConvertible {
    /// The width in millimetres, as the page is held (landscape turned).
    public let width: Double
    /// The height in millimetres, as the page is held (landscape turned).
    public let height: Double
    public let description: String

    /// The named sizes, portrait, in millimetres (ISO 216; US sizes from inches).
    public static let named: [(name: String, width: Double, height: Double)] = [
        ("A5", 148, 210), ("A4", 210, 297), ("A3", 297, 420),
        ("Letter", 215.9, 279.4), ("Legal", 215.9, 355.6), ("Tabloid", 279.4, 431.8),
    ]

    /// "A4", "letter:landscape" (names in any case), "210x297mm", "21x29.7cm", "8.5x11in";
    /// each side at most 2 metres.
    public init?(_ text: String) {
        var base = Substring(text)
        var landscape = false
        if let colon = text.firstIndex(of: ":") {
            guard text[text.index(after: colon)...].lowercased() == "landscape" else { return nil }
            base = text[..<colon]
            landscape = true
        }
        var size: (Double, Double)
        if let page = Self.named.first(where: { $0.name.lowercased() == base.lowercased() }) {
            size = (page.width, page.height)
        } else {
            let lowered = base.lowercased()
            guard let unit = [("mm", 1.0), ("cm", 10.0), ("in", 25.4)].first(where: { lowered.hasSuffix($0.0) }) else { return nil }
            let parts = lowered.dropLast(2).split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let width = PrintLength.number(parts[0]), let height = PrintLength.number(parts[1]),
                  width > 0, height > 0, width * unit.1 <= 2000, height * unit.1 <= 2000 else { return nil }
            size = (width * unit.1, height * unit.1)
        }
        if landscape && size.0 < size.1 { size = (size.1, size.0) }
        (width, height, description) = (size.0, size.1, text)
    }

    /// The page in whole pixels at `dpi` (A4 at 300 dpi: 2480x3508).
    public func pixels(at dpi: Int) -> (width: Int, height: Int) {
        (Int((width / 25.4 * Double(dpi)).rounded()), Int((height / 25.4 * Double(dpi)).rounded()))
    }
}

/// What a run knows about print: the page if any, the resolution, the margin.
public struct PrintSettings: Sendable, Equatable {
    /// `--page`, if given: each sheet a page of this size.
    public var page: PageSize?
    /// `--dpi`, if given.
    public var dpi: Int?
    /// `--margin`, if given (10mm by default with a page, 0 without).
    public var margin: PrintLength?

    /// No page, no `--dpi`, no `--margin`: a screen's sheets, at 72 dpi.
    public init() {}

    /// The run's resolution: `--dpi`, else 300 on a page, else 72.
    public var resolution: Int { dpi ?? (page == nil ? 72 : 300) }

    /// The margin's length: `--margin`, else 10 mm on a page, else none.
    var marginLength: PrintLength? { margin ?? (page == nil ? nil : PrintLength(millimetres: 10)) }

    /// The margin kept clear around a sheet's contents, in pixels (rounded
    /// to the nearest, as a run's options record it).
    public var marginPixels: Int { marginLength?.pixels(at: resolution) ?? 0 }

    /// The margin in pixels as exact as its length (10 mm at 100 dpi:
    /// 39.37): what a page's layout keeps clear (`LayoutOptions.pageMargin`).
    public var exactMarginPixels: Double { marginLength?.exactPixels(at: resolution) ?? 0 }

    /// Pixels per point: text sizes given in points are this many pixels.
    /// 1 without a page, where sizes stay the screen's.
    var pixelsPerPoint: Double { page == nil ? 1 : Double(resolution) / 72 }

    /// Points per pixel of the canvas: a PDF page's size is the canvas at the resolution.
    public var pointsPerPixel: Double { 72 / Double(resolution) }
}
