import XCTest
@testable import Vips

/// What `Difference` tells apart on pages made here: text rendered a hair
/// to the side (noise), part of a page moved (a shift, found by aligning
/// rows, compared after aligning), and a real change below a shift.
final class DiffAnalysisTests: XCTestCase {
    private let sentences = ["The quick brown fox jumps over the lazy dog", "Pack my box with five dozen liquor jugs",
                             "Sphinx of black quartz, judge my vow", "How vexingly quick daft zebras jump",
                             "Release notes: version 2.4 adds a timeline", "Bright vixens jump; dozy fowl quack"]

    /// A 320x400 page: a blue header band 40 rows high (grown by `grow`
    /// rows), then lines of text, all `scale` times larger and moved `nudge`
    /// pixels right at that size (a sub-pixel move once shrunk), and a
    /// block of `block` colour at (100, 300) 30x10 below the text.
    private func page(grow: Int = 0, nudge: Int = 0, scale: Int = 1, block: RGB? = nil) throws -> FullPicture {
        let header = RGB(red: 40, green: 80, blue: 200)
        var pixels = PixelBuffer(width: 320 * scale, height: 400 * scale) { _, y in
            y < (40 + grow) * scale ? header : .white
        }
        for (index, sentence) in sentences.enumerated() {
            let text = try XCTUnwrap(try TextRenderer.line(sentence, font: "DejaVu Sans", pixelSize: 13 * scale,
                                                           maxWidth: 300 * scale))
            let y = (60 + grow + index * 35) * scale
            pixels.draw(text, x: 10 * scale + nudge, y: y, clip: (0, 0, pixels.width, pixels.height))
        }
        if let block {
            pixels.place(PixelBuffer(width: 30, height: 10, fill: block), x: 100, y: 300 + grow)
        }
        let picture = try FullPicture(pixels)
        return scale == 1 ? picture : try FullPicture(picture.fitted(width: 320, height: 400))
    }

    private func compare(_ a: FullPicture, _ b: FullPicture) throws -> Difference {
        try Difference.compare(a, b, options: DifferenceOptions())
    }

    /// On two threads (a pair that runs alone) the rows are shared out in
    /// runs; every finding is the same as on one: counts, shifts, boxes,
    /// the change's fingerprint and the mask, byte for byte.
    func testTwoThreadsFindWhatOneFinds() throws {
        let pairs = [(try page(scale: 4), try page(nudge: 1, scale: 4)),
                     (try page(block: RGB(red: 220, green: 0, blue: 0)), try page(grow: 2, block: RGB(red: 0, green: 0, blue: 220))),
                     (try page(), try page(grow: 3, nudge: 1, block: .black))]
        for (index, (a, b)) in pairs.enumerated() {
            let one = try Difference.compare(a, b, options: DifferenceOptions(), threads: 1)
            let two = try Difference.compare(a, b, options: DifferenceOptions(), threads: 2)
            XCTAssertEqual([one.pixels, one.raw, one.noise], [two.pixels, two.raw, two.noise], "pair \(index)")
            XCTAssertEqual(one.shifts, two.shifts, "pair \(index)")
            XCTAssertEqual(one.differingBox, two.differingBox, "pair \(index)")
            XCTAssertEqual(one.changeBox, two.changeBox, "pair \(index)")
            XCTAssertEqual(one.change, two.change, "pair \(index)")
            XCTAssertGreaterThan(one.noise + one.pixels, 0, "pair \(index) differs")
            let (maskOne, maskTwo) = (try one.maskPixels(), try two.maskPixels())
            XCTAssertTrue(maskOne.withUnsafeBytes { l in maskTwo.withUnsafeBytes { r in l.elementsEqual(r) } }, "pair \(index)")
        }
    }

    /// Text drawn 0.25 px further right: pixelmatch counts its edges, but
    /// each differing pixel matches one a pixel away: noise, nothing real.
    func testSubPixelTextIsNoise() throws {
        let difference = try compare(page(scale: 4), page(nudge: 1, scale: 4))
        XCTAssertGreaterThan(difference.noise, 100, "the text's edges differ")
        XCTAssertEqual(difference.pixels, 0, "none of them is a real change")
        XCTAssertEqual(difference.shifts, [])
        XCTAssertGreaterThan(difference.raw, 0, "pixelmatch counts some")
        let half = try compare(page(scale: 4), page(nudge: 2, scale: 4))
        XCTAssertEqual(half.pixels, 0, "half a pixel")
    }

    /// The noise rules do not hide real changes: a word changed, a thin
    /// line drawn, a faint dot.
    func testRealChangesAreNotNoise() throws {
        let before = try page()
        var words = try before.pixels()
        words.place(PixelBuffer(width: 300, height: 20, fill: .white), x: 0, y: 93)
        let text = try XCTUnwrap(try TextRenderer.line("Pack my box with six dozen liquor jugs", font: "DejaVu Sans",
                                                       pixelSize: 13, maxWidth: 300))
        words.draw(text, x: 10, y: 95, clip: (0, 0, 320, 400))
        XCTAssertGreaterThan(try compare(before, FullPicture(words)).pixels, 20, "a word changed")
        var line = try before.pixels()
        line.place(PixelBuffer(width: 200, height: 1, fill: RGB(red: 90, green: 90, blue: 90)), x: 20, y: 270)
        XCTAssertEqual(try compare(before, FullPicture(line)).pixels, 200, "a thin line drawn")
    }

    /// The header grew by 2 rows: everything below it moved down 2, one band
    /// from the header's end, and nothing else changed.
    func testTwoPixelShiftBelowABandIsAShiftOfExactlyTwo() throws {
        let difference = try compare(page(), page(grow: 2))
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertEqual(difference.shifts.count, 1, "\(difference.shifts)")
        XCTAssertEqual(difference.shifts.first?.y, 40)
        XCTAssertEqual(difference.shifts.first?.dy, 2)
        XCTAssertEqual(difference.shifts.first?.dx, 0)
        XCTAssertGreaterThan(difference.raw, 1000, "pixelmatch, not aligning, counts the moved text")
    }

    /// A block recoloured below the shift: the shift is found, and only the
    /// block's 300 pixels are counted, where they are in the current page.
    func testRecolourBelowAShiftIsCountedAlone() throws {
        let difference = try compare(page(block: RGB(red: 220, green: 0, blue: 0)),
                                     page(grow: 2, block: RGB(red: 0, green: 0, blue: 220)))
        XCTAssertEqual(difference.pixels, 300)
        XCTAssertEqual(difference.shifts.map(\.dy), [2])
        let mask = try difference.maskPixels()
        XCTAssertEqual(mask.pixel(x: 100, y: 302), .white, "the block's first pixel, 2 rows lower")
        XCTAssertEqual(mask.pixel(x: 129, y: 311), .white)
        XCTAssertEqual(mask.pixel(x: 100, y: 301), .black)
        XCTAssertEqual(mask.pixel(x: 130, y: 302), .black)
    }

    /// The whole page moved down one row: a shift of 1 (the first white rows
    /// match where they are; the band starts with the header).
    func testWholePageMovedByOneRowIsAShift() throws {
        let before = try page()
        let original = try before.pixels()
        let moved = PixelBuffer(width: 320, height: 400) { x, y in y == 0 ? .white : original.pixel(x: x, y: y - 1) }
        let difference = try compare(before, FullPicture(moved))
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertEqual(difference.shifts.map(\.dy), [1])
    }

    /// A 120x200 page of five blocks of bars with soft (anti-aliased) right
    /// ends, 5 rows each, at rows 30, 60, 90, 120 and 150, each bar's end at
    /// its length plus `phase` (the block at 150 at `phase` + `last`); the
    /// blocks at 60 and 150 have the same lengths.
    private func blocks(phase: Double, last: Double) -> PixelBuffer {
        PixelBuffer(width: 120, height: 200) { x, y in
            let block = (y - 30) / 30, row = (y - 30) % 30
            guard y >= 30, block < 5, row < 5 else { return .white }
            let shape = block == 4 ? 1 : block, end = 20 + Double(shape * 11 + row * 7) + phase + (block == 4 ? last : 0)
            let value = UInt8((255 * (1 - min(1, max(0, end - Double(x))))).rounded())
            return RGB(red: value, green: value, blue: value)
        }
    }

    /// A page rendered 0.3 px to the right: no row of it is equal at its
    /// place, but one block now equals, byte for byte, a block of the same
    /// shape 90 rows further down in the baseline. That block did not move
    /// up 90: it is the same text a hair aside, noise like the rest.
    func testRowsEqualByChanceFarAwayAreNotAMove() throws {
        let before = try FullPicture(blocks(phase: 0.3, last: 0.3))
        let after = try FullPicture(blocks(phase: 0.6, last: 0.3))
        let difference = try compare(before, after)
        XCTAssertEqual(difference.shifts, [])
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertGreaterThan(difference.noise, 0)
    }

    /// A short block really moved (6 rows down, into white room): few rows,
    /// but not alike where they were, so a shift of exactly 6.
    func testAShortBlockThatReallyMovedIsAShift() throws {
        let original = blocks(phase: 0.3, last: 0)
        let moved = PixelBuffer(width: 120, height: 200) { x, y in
            (90..<102).contains(y) ? (y >= 96 ? original.pixel(x: x, y: y - 6) : .white) : original.pixel(x: x, y: y)
        }
        let difference = try compare(FullPicture(original), FullPicture(moved))
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertTrue(difference.shifts.contains { $0.dy == 6 && $0.y <= 90 && $0.y + $0.height >= 95 }, "\(difference.shifts)")
    }

    /// The header grew 3 rows and the text below was rendered a quarter of a
    /// pixel aside: the move is found all the same (dy 3 exactly), and
    /// what is left after aligning is noise.
    func testAShiftWhoseLeftoverIsNoise() throws {
        let difference = try compare(page(scale: 4), page(grow: 3, nudge: 1, scale: 4))
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertGreaterThan(difference.noise, 0)
        XCTAssertEqual(Set(difference.shifts.map(\.dy)), [3], "\(difference.shifts)")
    }

    /// Lines of text moved 3 px right: a band with dx 3.
    func testBandMovedSidewaysIsAShiftWithDx() throws {
        let before = try page()
        let original = try before.pixels()
        let moved = PixelBuffer(width: 320, height: 400) { x, y in
            (95..<130).contains(y) ? (x < 3 ? .white : original.pixel(x: x - 3, y: y)) : original.pixel(x: x, y: y)
        }
        let difference = try compare(before, FullPicture(moved))
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertTrue(difference.shifts.contains { $0.dx == 3 && $0.dy == 0 }, "\(difference.shifts)")
    }

    /// A 200x120 panel on a white page whose fill goes from pale green to
    /// pale blue and whose 1-px border darkens a little: no pixel is over
    /// the threshold (pixelmatch counts none), but the area's colour moved
    /// as a whole: every pixel of it is counted, where it is.
    func testAPanelRecolouredUnderTheThresholdIsCounted() throws {
        func page(fill: RGB, border: RGB) throws -> FullPicture {
            try FullPicture(PixelBuffer(width: 320, height: 240) { x, y in
                guard (60..<260).contains(x), (50..<170).contains(y) else { return .white }
                return x == 60 || x == 259 || y == 50 || y == 169 ? border : fill
            })
        }
        let difference = try compare(page(fill: RGB(red: 238, green: 248, blue: 238), border: RGB(red: 200, green: 210, blue: 200)),
                                     page(fill: RGB(red: 238, green: 242, blue: 251), border: RGB(red: 196, green: 204, blue: 214)))
        XCTAssertEqual(difference.raw, 0, "pixelmatch sees nothing")
        XCTAssertEqual(difference.pixels, 200 * 120)
        XCTAssertEqual(difference.changeBox, PixelRect(x: 60, y: 50, width: 200, height: 120))
        // One level of grey over the same panel is no visible step: unchanged.
        let faint = try compare(page(fill: RGB(red: 238, green: 248, blue: 238), border: RGB(red: 200, green: 210, blue: 200)),
                                page(fill: RGB(red: 237, green: 247, blue: 237), border: RGB(red: 200, green: 210, blue: 200)))
        XCTAssertEqual([faint.pixels, faint.noise], [0, 0])
    }

    /// A filled box drawn a quarter of a pixel to the right: its left edge
    /// a column lighter, the column past its right edge a little darker,
    /// each a line that moved the same way; an edge moved, not a colour:
    /// nothing counted.
    func testABoxMovedAFractionIsNotAColourChange() throws {
        func page(_ offset: Double) throws -> FullPicture {
            try FullPicture(PixelBuffer(width: 200, height: 100) { x, y in
                guard (20..<60).contains(y) else { return .white }
                let cover = max(0, min(1, Double(x) + 1 - (40 + offset))) - max(0, min(1, Double(x) + 1 - (140 + offset)))
                let value = UInt8((255 - cover * (255 - 120)).rounded())
                return RGB(red: value, green: value, blue: 255)
            })
        }
        let difference = try compare(page(0), page(0.25))
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertEqual(difference.shifts, [])
    }

    /// Ten look-alike lines (the same sentence), the page drawn a quarter
    /// of a pixel to the right: no row is equal at its place, and the
    /// white rows between the lines equal white rows anywhere; no line
    /// moved to its look-alike, and nothing is counted.
    func testLookAlikeLinesMovedAFractionAreNotMoves() throws {
        func page(nudge: Int) throws -> FullPicture {
            var pixels = PixelBuffer(width: 320 * 4, height: 240 * 4, fill: .white)
            let text = try XCTUnwrap(try TextRenderer.line("1.2 Reading the options ........ 12", font: "DejaVu Sans",
                                                           pixelSize: 13 * 4, maxWidth: 300 * 4))
            for line in 0..<10 { pixels.draw(text, x: 40 + nudge, y: (20 + line * 18) * 4, clip: (0, 0, pixels.width, pixels.height)) }
            return try FullPicture(try FullPicture(pixels).fitted(width: 320, height: 240))
        }
        let difference = try compare(page(nudge: 0), page(nudge: 1))
        XCTAssertEqual(difference.shifts, [])
        XCTAssertEqual(difference.pixels, 0)
    }
}
