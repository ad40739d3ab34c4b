/// One line of text as libvips' text renderer (Pango, real fonts) drew it.
/// `width` is the ink's width; `height` is the font's line height, the same
/// for every text of that font, so captions drawn at the same y share a
/// baseline whatever letters they hold.
public struct RenderedText: Sendable {
    /// What was drawn: after control characters became spaces and the cut.
    public let text: String
    public let width: Int
    public let height: Int
    /// Characters of `text` that no installed font has: Pango drew its
    /// missing-glyph box (a box of hex digits) for each.
    public internal(set) var missing: [Unicode.Scalar] = []
    /// The ink, straight (not premultiplied) RGBA, `width` x `inkHeight`:
    /// the text's colour, or a colour emoji's own, and its coverage, 0
    /// (none) to 255 (full). Its top row is `inkTop` rows below the line's
    /// top (negative for a glyph taller than the font's accented capitals).
    let pixels: [UInt8]
    let inkTop: Int
    let inkHeight: Int

    init(text: String, width: Int, height: Int, pixels: [UInt8], inkTop: Int, inkHeight: Int) {
        (self.text, self.width, self.height) = (text, width, height)
        (self.pixels, self.inkTop, self.inkHeight) = (pixels, inkTop, inkHeight)
    }

    /// The coverage at (x, y) of the line's box, 0 outside the ink.
    public func coverage(x: Int, y: Int) -> UInt8 {
        offset(x: x, y: y).map { pixels[$0 + 3] } ?? 0
    }

    /// The ink's colour at (x, y) of the line's box, nil where there is none.
    public func colour(x: Int, y: Int) -> RGB? {
        guard let offset = offset(x: x, y: y), pixels[offset + 3] > 0 else { return nil }
        return RGB(red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2])
    }

    private func offset(x: Int, y: Int) -> Int? {
        let row = y - inkTop
        guard x >= 0, x < width, row >= 0, row < inkHeight else { return nil }
        return (row * width + x) * 4
    }

    /// One line: a control character or line break (a grapheme holding one)
    /// is a space, so a name with a newline or a tab stays on its line.
    static func oneLine(_ character: Character) -> Character {
        character.isNewline || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
            ? " " : character
    }

    /// Draws no ink: white space and format characters (zero-width space, joiners, marks of direction).
    static func isBlank(_ character: Character) -> Bool {
        character.isWhitespace || character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .format }
    }

    /// libvips' text is Pango markup: a name is drawn as it is written, in `colour`.
    static func markup(_ text: String, colour: RGB) -> String {
        var out = "<span foreground=\"\(colour)\">"
        out.reserveCapacity(text.utf8.count + 40)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out + "</span>"
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
