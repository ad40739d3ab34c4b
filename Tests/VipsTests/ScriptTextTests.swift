import CollageTestSupport
import XCTest
@testable import Vips

/// Captions in every script people name files in, with the fonts the
/// package asks for (fonts-dejavu-core, fonts-wqy-microhei,
/// fonts-noto-color-emoji, fonts-noto-core): no glyph is Pango's
/// missing-glyph box, right-to-left scripts run right to left, Arabic joins,
/// and emoji keep their colours.
final class ScriptTextTests: XCTestCase {
    private let font = "DejaVu Sans 20"

    override func setUpWithError() throws { try Vips.start() }

    static let scripts: [(script: String, text: String)] = [
        ("Latin with accents", "Crème brûlée à Ångström, Łódź, São Paulo"),
        ("Cyrillic", "Привет, мир: Ёжик"),
        ("Greek", "Καλημέρα κόσμε"),
        ("CJK", "東京の夜 写真 서울의 밤"),
        ("Arabic", "مرحبا بالعالم"),
        ("Hebrew", "שלום עולם"),
        ("Devanagari", "नमस्ते दुनिया"),
        ("emoji", "Party 🎉😀👍🏽🇯🇵"),
    ]

    private func line(_ text: String, colour: RGB = .black) throws -> RenderedText {
        try XCTUnwrap(try TextRenderer.line(text, font: font, pixelSize: 20, maxWidth: 4000, colour: colour),
                      "nothing drawn for \(text)")
    }

    func testEveryScriptIsDrawnWithRealGlyphs() throws {
        for (script, text) in Self.scripts {
            let drawn = try line(text)
            XCTAssertEqual(drawn.text, text, script)
            XCTAssertEqual(drawn.missing, [], "\(script): drawn as boxes: \(FontPackages.advice(for: drawn.missing))")
            XCTAssertGreaterThan(drawn.width, 40, script)
        }
    }

    /// The count is Pango's own: a character no font has (a private-use one)
    /// is reported, by its code point, and its package advice names one.
    func testACharacterNoFontHasIsReported() throws {
        let drawn = try line("photo \u{10FFFD} x")
        XCTAssertEqual(drawn.missing, ["\u{10FFFD}"])
        XCTAssertTrue(FontPackages.advice(for: drawn.missing).hasPrefix("\u{10FFFD} (U+10FFFD): install fonts-"),
                      FontPackages.advice(for: drawn.missing))
        XCTAssertEqual(FontPackages.code("\u{928}"), "U+0928")
        XCTAssertTrue(FontPackages.isCJK("東") && FontPackages.isCJK("서") && !FontPackages.isCJK("न"))
        XCTAssertTrue(FontPackages.isEmoji("🎉") && !FontPackages.isEmoji("7") && !FontPackages.isEmoji("A"))
    }

    /// An emoji is drawn in its own colours, whatever the text's colour.
    func testEmojiKeepTheirColours() throws {
        let drawn = try line("😀🎉", colour: .black)
        var coloured = 0
        for y in -10..<(drawn.height + 10) {
            for x in 0..<drawn.width {
                guard let pixel = drawn.colour(x: x, y: y), drawn.coverage(x: x, y: y) > 200 else { continue }
                if Int(pixel.red) - Int(pixel.blue) > 100 { coloured += 1 }  // the yellow face, the popper
            }
        }
        XCTAssertGreaterThan(coloured, 50, "colour pixels in a black caption")
        // Plain text stays the colour asked for.
        let plain = try line("Ab", colour: RGB(red: 200, green: 0, blue: 0))
        let covered: [RGB] = (0..<plain.width).flatMap { x -> [RGB] in
            (-10..<40).compactMap { plain.coverage(x: x, y: $0) > 200 ? plain.colour(x: x, y: $0) : nil }
        }
        XCTAssertGreaterThan(covered.count, 20)
        // (Straight alpha: pixels barely covered are rounded from very little.)
        XCTAssertTrue(covered.allSatisfy { (pixel: RGB) in pixel.distance(to: RGB(red: 200, green: 0, blue: 0)) <= 12 }, "\(Set(covered))")
    }

    /// Hebrew runs right to left: the first letter of "אב" is drawn on the right.
    func testHebrewRunsRightToLeft() throws {
        let pair = try line("אב"), alef = try line("א"), bet = try line("ב")
        func difference(_ letter: RenderedText, at offset: Int) -> Int {
            var total = 0
            for y in -5..<(pair.height + 5) {
                for x in 0..<letter.width {
                    total += abs(Int(pair.coverage(x: x + offset, y: y)) - Int(letter.coverage(x: x, y: y)))
                }
            }
            return total
        }
        let alefRight = difference(alef, at: pair.width - alef.width), alefLeft = difference(alef, at: 0)
        let betLeft = difference(bet, at: 0), betRight = difference(bet, at: pair.width - bet.width)
        XCTAssertLessThan(alefRight, alefLeft, "alef, the first letter, is on the right")
        XCTAssertLessThan(betLeft, betRight, "bet, the second, on the left")
    }

    /// Arabic letters join: three behs together are narrower than three alone.
    func testArabicLettersJoin() throws {
        let joined = try line("ببب"), alone = try line("ب")
        XCTAssertLessThan(joined.width, 3 * alone.width - 4)
    }
}
