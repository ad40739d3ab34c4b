internal import CVipsShim
import Synchronization

/// One line of text as libvips' text renderer (Pango, real fonts) draws it:
/// its coverage, 0 (none) to 255 (full), `width` x `height`.
public struct RenderedText: Sendable {
    public let text: String
    public let width: Int
    public let height: Int
    let coverage: [UInt8]
}

public struct FontError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// Captions and titles: text rendered by libvips (which serialises its
/// Pango calls under its own lock, so any thread may call these).
public enum TextRenderer {
    /// `text` in one line of `font` (a font description such as "DejaVu
    /// Sans 14"; without a size, `pixelSize` is used), at most `maxWidth`
    /// pixels wide: a text too wide is cut and ends with "…". Control
    /// characters become spaces and markup is drawn as text. nil when
    /// there is nothing to draw.
    public static func line(_ text: String, font: String, pixelSize: Int, maxWidth: Int) throws -> RenderedText? {
        let clean = String(text.map { $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control }
                                      ? " " : $0 })
        guard maxWidth > 0, !clean.allSatisfy({ $0 == " " }) else { return nil }
        let described = describe(font, pixelSize: pixelSize)
        let whole = try render(clean, font: described)
        if whole.width <= maxWidth { return whole }
        // The longest start of the text that fits with an ellipsis.
        let characters = Array(clean)
        var low = 0, high = characters.count - 1
        var best: RenderedText?
        while low <= high {
            let middle = (low + high) / 2
            let attempt = try render(String(characters[..<middle]).trimmingTrailingSpaces + "…", font: described)
            if attempt.width <= maxWidth { best = attempt; low = middle + 1 } else { high = middle - 1 }
        }
        return best
    }

    /// The height of a line of `font` at `pixelSize`, with ascenders and
    /// descenders: the band a caption needs before its text is known.
    public static func lineHeight(font: String, pixelSize: Int) -> Int {
        let described = describe(font, pixelSize: pixelSize)
        if let known = heights.withLock({ $0[described] }) { return known }
        let height = (try? render("ÁÉgjpqy|", font: described).height) ?? pixelSize * 3 / 2
        heights.withLock { $0[described] = height }
        return height
    }

    private static let heights = Mutex<[String: Int]>([:])

    /// Checks a font description: its size (points, nil when it has none),
    /// and an error when it names a family that is not installed (saying
    /// which fontconfig would use instead). Generic families always do.
    public static func resolveFont(_ description: String) -> Result<Int?, FontError> {
        var family = [CChar](repeating: 0, count: 512), matched = [CChar](repeating: 0, count: 512)
        var points: Int32 = 0
        guard (try? Vips.start()) != nil,
              cvips_font_match(description, &family, Int32(family.count), &matched, Int32(matched.count), &points) == 0
        else { return .failure(FontError(description: "cannot read the font description '\(description)'")) }
        func text(_ bytes: [CChar]) -> String {
            String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let requested = text(family), used = text(matched)
        let generic = ["", "sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy"]
        if !generic.contains(requested.lowercased()) && requested.lowercased() != used.lowercased() {
            return .failure(FontError(description: "font '\(requested)' is not installed (fontconfig would use '\(used)' "
                                      + "instead); fc-list lists the fonts there are"))
        }
        return .success(points > 0 ? Int(points) : nil)
    }

    /// The description with `pixelSize` when it names no size of its own.
    static func describe(_ font: String, pixelSize: Int) -> String {
        if let last = font.split(separator: " ").last, Double(last.trimmingSuffix("px")) != nil { return font }
        return font + " \(pixelSize)"
    }

    private static func render(_ text: String, font: String) throws -> RenderedText {
        try Vips.start()
        var out: UnsafeMutablePointer<VipsImage>?
        guard cvips_text(&out, escaped(text), font) == 0, let out else {
            throw VipsError.fromLibvips(.operation, "cannot render text")
        }
        let image = Image(owning: out)
        var size = 0
        guard let data = vips_image_write_to_memory(image.pointer, &size) else {
            throw VipsError.fromLibvips(.operation, "cannot render text")
        }
        defer { g_free(data) }
        let coverage = Array(UnsafeRawBufferPointer(start: data, count: size).prefix(image.width * image.height))
        return RenderedText(text: text, width: image.width, height: image.height, coverage: coverage)
    }

    /// libvips' text is Pango markup: a name is drawn as it is written.
    private static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}

extension PixelBuffer {
    /// Draws `text` in `colour` with its top-left corner at (x, y), blended
    /// by its coverage and clipped to `clip` and to the buffer.
    public func draw(_ text: RenderedText, colour: RGB, x: Int, y: Int,
                     clip: (x: Int, y: Int, width: Int, height: Int)) {
        let left = max(x, clip.x, 0), top = max(y, clip.y, 0)
        let right = min(x + text.width, clip.x + clip.width, width)
        let bottom = min(y + text.height, clip.y + clip.height, height)
        guard left < right, top < bottom, bands >= 3 else { return }
        let pixels = base.assumingMemoryBound(to: UInt8.self)
        let ink = [Int(colour.red), Int(colour.green), Int(colour.blue)]
        for row in top..<bottom {
            for column in left..<right {
                let alpha = Int(text.coverage[(row - y) * text.width + (column - x)])
                guard alpha > 0 else { continue }
                let offset = (row * width + column) * bands
                for band in 0..<3 {
                    let old = Int(pixels[offset + band])
                    pixels[offset + band] = UInt8((old * (255 - alpha) + ink[band] * alpha + 127) / 255)
                }
            }
        }
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}

extension Substring {
    func trimmingSuffix(_ suffix: String) -> Substring { hasSuffix(suffix) ? dropLast(suffix.count) : self }
}
