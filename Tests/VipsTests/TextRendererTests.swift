import CollageTestSupport
import Dispatch
import Locking
import XCTest
@testable import Vips

/// Captions as libvips' text renderer draws them: ink in the colour asked
/// for inside the clip and nowhere else, long texts cut with "…" to fit,
/// markup and control characters drawn as text, fonts checked.
final class TextRendererTests: XCTestCase {
    private let font = "DejaVu Sans 14"
    private let paper = RGB(red: 240, green: 240, blue: 240)
    private let red = RGB(red: 200, green: 0, blue: 0)

    override func setUpWithError() throws { try Vips.start() }

    private func line(_ text: String, maxWidth: Int = 1000, font: String? = nil) throws -> RenderedText {
        guard let rendered = try TextRenderer.line(text, font: font ?? self.font, pixelSize: 14, maxWidth: maxWidth,
                                                   colour: red)
        else { throw TestFailure("nothing drawn for '\(text)'") }
        return rendered
    }

    /// Pixels in the rectangle that are not the paper.
    private func ink(_ pixels: PixelBuffer, x: Int, y: Int, width: Int, height: Int) -> [RGB] {
        var found: [RGB] = []
        for row in max(0, y)..<min(pixels.height, y + height) {
            for column in max(0, x)..<min(pixels.width, x + width) where pixels.pixel(x: column, y: row) != paper {
                found.append(pixels.pixel(x: column, y: row))
            }
        }
        return found
    }

    func testACaptionIsInkInItsColourInsideItsClipAndNowhereElse() throws {
        let text = try line("Ágjy caption")
        XCTAssertEqual(text.text, "Ágjy caption")
        XCTAssertGreaterThan(text.width, 50)
        XCTAssertEqual(text.height, TextRenderer.lineHeight(font: font, pixelSize: 14))
        var pixels = PixelBuffer(width: 200, height: 60, fill: paper)
        // The clip cuts the line in half: its right half is not drawn.
        let clip = (x: 10, y: 10, width: text.width / 2, height: 40)
        pixels.draw(text, x: 10, y: 15, clip: clip)
        let inside = ink(pixels, x: clip.x, y: clip.y, width: clip.width, height: clip.height)
        XCTAssertGreaterThan(inside.count, 30)
        XCTAssertTrue(inside.contains(red), "fully covered pixels are the colour itself")
        // Blended pixels lie between the paper and the colour: red is the strongest channel.
        XCTAssertTrue(inside.allSatisfy { $0.red >= $0.green && $0.green == $0.blue }, "\(inside.prefix(5))")
        let all = ink(pixels, x: 0, y: 0, width: pixels.width, height: pixels.height)
        XCTAssertEqual(all.count, inside.count, "no ink outside the clip")
    }

    func testDrawingOffTheBufferIsClipped() throws {
        let text = try line("edges")
        var pixels = PixelBuffer(width: 20, height: 10, fill: paper)
        pixels.draw(text, x: -5, y: -8, clip: (x: -100, y: -100, width: 1000, height: 1000))
        pixels.draw(text, x: 15, y: 5, clip: (x: 0, y: 0, width: 1000, height: 1000))
        XCTAssertFalse(ink(pixels, x: 0, y: 0, width: 20, height: 10).isEmpty)
    }

    func testTextsOfOneFontShareTheirLineBoxAndBaseline() throws {
        let low = try line("ace"), high = try line("ÁÇgjy")
        XCTAssertEqual(low.height, high.height)
        // "ace" has neither ascender nor descender: its ink starts lower and ends higher.
        XCTAssertGreaterThan(low.inkTop, high.inkTop)
        XCTAssertLessThan(low.inkTop + low.inkHeight, high.inkTop + high.inkHeight)
        // Its baseline is the same: the bottom of "e" in "ace" is "Á"'s bottom in "Áce".
        let base = try line("Ace")
        XCTAssertEqual(base.inkTop + base.inkHeight, low.inkTop + low.inkHeight)
    }

    func testALongTextIsCutWithAnEllipsisToFit() throws {
        let long = String(repeating: "a very long file name ", count: 20) + ".jpg"
        for maxWidth in [40, 120, 283] {
            let cut = try line(long, maxWidth: maxWidth)
            XCTAssertLessThanOrEqual(cut.width, maxWidth)
            XCTAssertEqual(cut.text.last, "…")
            XCTAssertTrue(long.hasPrefix(String(cut.text.dropLast())), cut.text)
            // The longest start that fits: the next longer one would not.
            var next = cut.text.count
            while String(long.prefix(next)).trimmingTrailingSpaces + "…" == cut.text { next += 1 }
            let longer = String(long.prefix(next)).trimmingTrailingSpaces + "…"
            XCTAssertGreaterThan(try line(longer).width, maxWidth, longer)
        }
        let short = try line("short.jpg", maxWidth: 283)
        XCTAssertEqual(short.text, "short.jpg")
        XCTAssertNil(try TextRenderer.line(long, font: font, pixelSize: 14, maxWidth: 2), "not even … fits")
        // Wider than cairo can draw at once, and a path of thousands of clusters: cut all the same.
        let huge = try line(String(repeating: "W", count: 5000), maxWidth: 40000)
        XCTAssertEqual(huge.text.last, "…")
        XCTAssertLessThanOrEqual(huge.width, 32767)
        XCTAssertLessThanOrEqual(try line(String(repeating: "il.", count: 3000), maxWidth: 900).width, 900)
    }

    func testGraphemeClustersAreNotSplitByTheCut() throws {
        // "e" + combining acute, and a family emoji of joined scalars: each one cluster.
        let text = String(repeating: "e\u{301}👨‍👩‍👧", count: 30)
        let cut = try line(text, maxWidth: 100)
        XCTAssertLessThanOrEqual(cut.width, 100)
        let kept = cut.text.dropLast()
        XCTAssertTrue(text.hasPrefix(String(kept)))
        XCTAssertTrue(kept.last == "e\u{301}" || kept.last == "👨‍👩‍👧", "\(kept.unicodeScalars.last.map(String.init) ?? "")")
    }

    func testMarkupIsDrawnAsText() throws {
        XCTAssertNotEqual(try line("a<b>b").width, try line("ab").width)
        let entity = try line("<b>&amp;</b>")
        XCTAssertEqual(entity.text, "<b>&amp;</b>")
        XCTAssertGreaterThan(entity.width, try line("&").width * 5)
        XCTAssertNotNil(try TextRenderer.line("a < b & c > d", font: font, pixelSize: 14, maxWidth: 500))
    }

    func testControlCharactersStayOnOneLine() throws {
        let broken = try line("first\nsecond\tthird\r\n\u{0}fourth\u{2028}fifth")
        XCTAssertEqual(broken.height, try line("first").height, "one line high")
        XCTAssertFalse(broken.text.contains { $0.isNewline || $0 == "\t" || $0 == "\u{0}" })
        XCTAssertEqual(broken.width, try line("first second third  fourth fifth").width)
    }

    func testTheReplacementCharacterOfANameThatIsNotUTF8IsDrawn() throws {
        let name = String(decoding: Array("caf".utf8) + [0xE9] + Array(".png".utf8), as: UTF8.self)
        XCTAssertEqual(name, "caf\u{FFFD}.png")
        XCTAssertGreaterThan(try line(name).width, try line("caf.png").width)
    }

    func testBlankTextDrawsNothing() throws {
        for blank in ["", "   ", "\n\t", "\u{200B}", "\u{3000}"] {
            XCTAssertNil(try TextRenderer.line(blank, font: font, pixelSize: 14, maxWidth: 100), blank.debugDescription)
        }
        XCTAssertNil(try TextRenderer.line("text", font: font, pixelSize: 14, maxWidth: 0))
    }

    func testTheSizeOfTheFontOrThePixelSize() throws {
        XCTAssertEqual(TextRenderer.size(of: "DejaVu Sans 14"), 14)
        XCTAssertEqual(TextRenderer.size(of: "Sans Bold 11"), 11)
        XCTAssertEqual(TextRenderer.size(of: "Sans 12px"), 12)
        XCTAssertNil(TextRenderer.size(of: "DejaVu Sans"))
        XCTAssertNil(TextRenderer.size(of: "Sans Bold"))
        let small = try XCTUnwrap(TextRenderer.line("Size", font: "DejaVu Sans", pixelSize: 10, maxWidth: 500))
        let large = try XCTUnwrap(TextRenderer.line("Size", font: "DejaVu Sans", pixelSize: 30, maxWidth: 500))
        XCTAssertGreaterThan(large.width, small.width * 2)
        let named = try XCTUnwrap(TextRenderer.line("Size", font: "DejaVu Sans 30", pixelSize: 10, maxWidth: 500))
        XCTAssertEqual(named.width, large.width, "the description's own size wins")
        XCTAssertGreaterThan(TextRenderer.lineHeight(font: "DejaVu Sans", pixelSize: 30),
                             TextRenderer.lineHeight(font: "DejaVu Sans", pixelSize: 10) * 2)
    }

    func testFontsAreResolvedWithFontconfig() throws {
        XCTAssertEqual(try TextRenderer.resolveFont("DejaVu Sans 14").get(), "DejaVu Sans")
        XCTAssertEqual(try TextRenderer.resolveFont("dejavu sans bold 9").get(), "DejaVu Sans")
        for generic in ["Sans 11", "serif 12", "Monospace", "sans-serif 10", "Bold 12"] {
            XCTAssertNoThrow(try TextRenderer.resolveFont(generic).get(), generic)
        }
        guard case .failure(let error) = TextRenderer.resolveFont("Nonexistent Font Xyz 12") else {
            return XCTFail("an uninstalled font is refused")
        }
        let fallback = try TextRenderer.resolveFont("Sans").get()
        XCTAssertEqual(error.description, "font 'Nonexistent Font Xyz' is not installed (fontconfig would use "
                       + "'\(fallback)'); fc-list lists those that are")
    }

    func testThreadsRenderAtOnce() throws {
        let expected = try line("thread 7").width
        let widths = Locked<[Int]>([]), font = self.font
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let width = (try? TextRenderer.line("thread \(index % 10)", font: font, pixelSize: 14, maxWidth: 500))?.width
            widths.withLock { $0.append(index % 10 == 7 ? width ?? -1 : expected) }
        }
        XCTAssertEqual(widths.withLock { $0 }, Array(repeating: expected, count: 64))
    }

    /// Not a test of speed (no clock is asserted): prints what 300 captions
    /// cost, half of them cut, for the record.
    func testCostOfThreeHundredCaptions() throws {
        for cut in [false, true] {
            let start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<300 {
                let name = cut ? "holiday-\(index)-" + String(repeating: "long name ", count: 8) : "IMG_\(index).jpg"
                let drawn = try TextRenderer.line(name, font: "DejaVu Sans", pixelSize: 13, maxWidth: 180)
                XCTAssertEqual(drawn?.text.last == "…", cut)
            }
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            print("300 captions\(cut ? " cut with …" : ""): \(Int(milliseconds)) ms, \(milliseconds / 300) ms each")
        }
    }
}
