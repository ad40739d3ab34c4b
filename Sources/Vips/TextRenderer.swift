internal import CVipsShim
import FileFacts
import Locking

/// Captions and titles, drawn by libvips' `text` operation at 72 dpi (a
/// size in points is a size in pixels).
///
/// Threads: libvips 8.14.1 (Debian bookworm's) takes no lock around Pango's
/// layout and drawing; it relies on Pango's per-thread default font map,
/// with fontconfig, cairo and FreeType shared underneath (later 8.14
/// releases draw with one private font map under a lock instead). All text
/// and font calls here go through one lock of our own, so no two threads
/// are ever in Pango or fontconfig at once whichever libvips is linked: a
/// render holds it for about a third of a millisecond.
public enum TextRenderer {
    /// `text` in one line of `font` (a Pango font description such as
    /// "DejaVu Sans 14"; without a size, `pixelSize` is used), at most
    /// `maxWidth` pixels wide: a text too wide is cut between grapheme
    /// clusters and ends with "…". Control characters and line breaks
    /// become spaces, and markup is drawn as text. nil when there is
    /// nothing to draw (empty or blank text, or not even "…" fits).
    /// Text is drawn in `colour`; a colour emoji font's glyphs in their own
    /// colours. `missing` lists the characters no installed font has.
    public static func line(_ text: String, font: String, pixelSize: Int, maxWidth: Int,
                            colour: RGB = .black) throws -> RenderedText? {
        guard var drawn = try fitted(text, font: font, pixelSize: pixelSize, maxWidth: maxWidth, colour: colour) else {
            return nil
        }
        drawn.missing = unknownCharacters(drawn.text, font: describe(font, pixelSize: pixelSize))
        return drawn
    }

    private static func fitted(_ text: String, font: String, pixelSize: Int, maxWidth: Int,
                               colour: RGB) throws -> RenderedText? {
        // cairo draws at most 32767 pixels wide. A visible cluster is at
        // least a sixth of the size wide: more than that many clusters
        // cannot fit, and are not drawn only to be cut; nor are more than
        // half of cairo's width at two sizes a cluster.
        let maxWidth = min(maxWidth, 32767)
        let described = describe(font, pixelSize: pixelSize)
        let em = max(size(of: described) ?? pixelSize, 1)
        let limit = min(maxWidth * 6, 16383) / em + 16
        var characters = Array(text.lazy.map(RenderedText.oneLine).prefix(limit + 1))
        let tooLong = characters.count > limit
        if tooLong { characters.removeLast() }
        guard maxWidth > 0, !characters.allSatisfy(RenderedText.isBlank) else { return nil }
        let box = try lineBox(described)
        guard let whole = try render(String(characters), font: described, box: box, colour: colour) else { return nil }
        if whole.width <= maxWidth && !tooLong { return whole }
        // The longest start of the text that fits with an ellipsis. Width
        // grows with the number of clusters, about in proportion: the first
        // guesses interpolate between the widest start known to fit and the
        // narrowest known not to (most cuts take two or three renders),
        // then a binary search finishes whatever they left.
        var low = 0, high = characters.count - 1
        var fits = (count: 0, width: box.ellipsis), fails = (count: characters.count, width: whole.width + box.ellipsis)
        var best: RenderedText?
        var guesses = 0
        while low <= high {
            let span = max(fails.width - fits.width, 1)
            let guess = fits.count + (maxWidth - fits.width) * (fails.count - fits.count) / span
            let middle = guesses < 4 ? min(max(guess, low), high) : (low + high) / 2
            guesses += 1
            let candidate = String(characters[..<middle]).trimmingTrailingSpaces + "…"
            // A start that differs from the one that fits only by spaces is that one.
            let attempt = candidate == best?.text ? best
                : try render(candidate, font: described, box: box, colour: colour)
            if let attempt, attempt.width <= maxWidth {
                best = attempt
                low = middle + 1
                fits = (middle, attempt.width)
            } else {
                high = middle - 1
                fails = (middle, attempt?.width ?? fails.width)
            }
        }
        return best
    }

    /// The height of a line of `font` at `pixelSize` (the band a caption
    /// needs before its text is known): from the top of an accented capital
    /// to the bottom of a descender.
    public static func lineHeight(font: String, pixelSize: Int) -> Int {
        (try? lineBox(describe(font, pixelSize: pixelSize)))?.height ?? pixelSize * 3 / 2
    }

    /// The description with `pixelSize` when it names no size of its own.
    static func describe(_ font: String, pixelSize: Int) -> String {
        size(of: font) == nil ? font + " \(max(pixelSize, 1))" : font
    }

    /// One lock for every call into Pango and fontconfig (see above).
    static let pango = Lock()

    typealias LineBox = (top: Int, height: Int, ellipsis: Int)

    /// Line boxes (top and height of "ÁÇgjpqy|" below the layout's top, and
    /// the width of "…") by font description: measured once each.
    private static let boxes = Locked<[String: LineBox]>([:])

    private static func lineBox(_ font: String) throws -> LineBox {
        if let known = boxes.withLock({ $0[font] }) { return known }
        guard let tall = try ink("ÁÇgjpqy|", font: font), let ellipsis = try ink("…", font: font) else {
            throw VipsError(.operation, "font '\(font)' draws nothing")
        }
        let box = (top: tall.top, height: tall.height, ellipsis: ellipsis.width)
        boxes.withLock { $0[font] = box }
        return box
    }

    private static func render(_ text: String, font: String, box: LineBox, colour: RGB) throws -> RenderedText? {
        guard let ink = try ink(text, font: font, colour: colour) else { return nil }
        return RenderedText(text: text, width: ink.width, height: box.height, pixels: ink.pixels,
                            inkTop: ink.top - box.top, inkHeight: ink.height)
    }

    /// The characters of `text` that no installed font has, drawn in `font`
    /// at `pixelSize` (a PDF's text, which another renderer draws).
    public static func missingCharacters(_ text: String, font: String, pixelSize: Int) -> [Unicode.Scalar] {
        unknownCharacters(text, font: describe(font, pixelSize: pixelSize))
    }

    /// The characters of `text` that no installed font has (Pango draws its
    /// missing-glyph box for each), at most 64 of them.
    static func unknownCharacters(_ text: String, font: String) -> [Unicode.Scalar] {
        var codes = [UInt32](repeating: 0, count: 64)
        let count = pango.withLock {
            cvips_text_unknown(RenderedText.markup(text, colour: .black), font, &codes, Int32(codes.count))
        }
        return codes.prefix(Int(max(0, min(count, Int32(codes.count))))).compactMap(Unicode.Scalar.init)
    }

    /// The ink of `text` in `colour`: straight RGBA, and its top below the
    /// layout's top; nil when it has none (only spaces or invisible characters).
    private static func ink(_ text: String, font: String, colour: RGB = .black) throws
        -> (pixels: [UInt8], width: Int, height: Int, top: Int)? {
        try Vips.start()
        if text.allSatisfy(RenderedText.isBlank) { return nil }
        var out: UnsafeMutablePointer<VipsImage>?
        let status = pango.withLock { cvips_text_rgba(&out, RenderedText.markup(text, colour: colour), font) }
        guard status == 0, let out else {
            let error = VipsError.fromLibvips(.operation, "cannot draw text in font '\(font)'")
            // libvips' word for a text whose ink is empty (a zero-width space).
            if error.message.contains("no text to render") { return nil }
            throw error
        }
        let image = Image(owning: out)
        var size = 0
        guard let data = vips_image_write_to_memory(image.pointer, &size) else {
            throw VipsError.fromLibvips(.operation, "cannot draw text in font '\(font)'")
        }
        defer { g_free(data) }
        let count = image.width * image.height * 4
        guard image.bands == 4, size >= count else { throw VipsError(.operation, "text drawn with \(image.bands) bands") }
        let pixels = Array(UnsafeRawBufferPointer(start: data, count: count))
        return (pixels, image.width, image.height, Int(vips_image_get_yoffset(image.pointer)))
    }
}
