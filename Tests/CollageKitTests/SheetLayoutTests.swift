import XCTest
@testable import CollageKit
@testable import Vips

/// The layouts as pure arithmetic: which cells, where, how large.
final class SheetLayoutTests: XCTestCase {
    private let landscape = ImageShape(width: 1600, height: 1200)

    private func options(gap: Int = 0, fit: Fit = .cover, columns: Int? = nil, rows: Int? = nil) -> LayoutOptions {
        var options = LayoutOptions()
        options.gap = gap
        options.fit = fit
        options.columns = columns
        options.rows = rows
        return options
    }

    private func shapes(_ count: Int) -> [ImageShape] { Array(repeating: landscape, count: count) }

    func testAutoIsTheSeedUpToSixAndTheNearFourThreeGridAbove() {
        let canvas = Canvas(width: 2400, height: 1600)
        for count in 1...6 {
            XCTAssertEqual(AutoLayout().frames(for: shapes(count), on: canvas),
                           SeedLayout().frames(for: shapes(count), on: canvas), "\(count)")
        }
        // Twelve on 2400x1600: 4x3 cells of 600x533, not 6x2 slivers.
        let twelve = AutoLayout().frames(for: shapes(12), on: canvas)
        XCTAssertEqual(twelve[0].image, TileRect(x: 0, y: 0, width: 600, height: 533))
        XCTAssertEqual(twelve[3].image, TileRect(x: 1800, y: 0, width: 600, height: 533))
        XCTAssertEqual(twelve[4].image, TileRect(x: 0, y: 533, width: 600, height: 533))
        XCTAssertEqual(twelve[11].image, TileRect(x: 1800, y: 1066, width: 600, height: 533))
    }

    func testTheGridClosestToFourThree() {
        // n, canvas → columns x rows, from |ln((W/C)/(H/R) / (4/3))|.
        let cases: [(Int, Int, Int, Int, Int)] = [
            (12, 2400, 1600, 4, 3), (7, 1200, 800, 3, 3), (18, 1800, 800, 6, 3), (2, 1200, 800, 2, 1),
            (1, 1200, 800, 1, 1), (20, 1000, 1000, 4, 5), (9, 1200, 900, 3, 3),
        ]
        for (count, width, height, columns, rows) in cases {
            let shape = GridLayout.nearFourThree(count: count, width: width, height: height)
            XCTAssertEqual(shape.columns, columns, "\(count) on \(width)x\(height)")
            XCTAssertEqual(shape.rows, rows, "\(count) on \(width)x\(height)")
        }
    }

    func testATieGoesToMoreColumns() {
        // Six on 1200x900: 2x3 gives cells of 600x300 (2:1), 3x2 of 400x450 (8:9);
        // 2 / (4/3) = 1.5 and (8/9) / (4/3) = 2/3: the same distance, |ln 1.5|.
        let tie = GridLayout.nearFourThree(count: 6, width: 1200, height: 900)
        XCTAssertEqual(tie.columns, 3)
        XCTAssertEqual(tie.rows, 2)
    }

    func testTileFixesColumnsRowsOrBoth() {
        let canvas = Canvas(width: 1200, height: 800)
        XCTAssertEqual(GridLayout(options: options(columns: 4)).shape(count: 10, area: options().area(canvas)).rows, 3)
        XCTAssertEqual(GridLayout(options: options(rows: 3)).shape(count: 10, area: options().area(canvas)).columns, 4)
        let both = GridLayout(options: options(columns: 4, rows: 3)).frames(for: shapes(5), on: canvas)
        XCTAssertEqual(both[4].image, TileRect(x: 0, y: 267, width: 300, height: 267), "row 1, column 0 of 4x3")
    }

    func testGapsFollowTheFormula() {
        // 4x3 on 1200x800 with g = 10: cellW = round((1200 - 50) / 4) = 288, cellH = round((800 - 40) / 3) = 253.
        let frames = GridLayout(options: options(gap: 10, columns: 4, rows: 3))
            .frames(for: shapes(12), on: Canvas(width: 1200, height: 800))
        XCTAssertEqual(frames[0].cell, TileRect(x: 10, y: 10, width: 288, height: 253))
        XCTAssertEqual(frames[5].cell, TileRect(x: 10 + 298, y: 10 + 263, width: 288, height: 253))
        XCTAssertEqual(frames[11].cell, TileRect(x: 10 + 3 * 298, y: 10 + 2 * 263, width: 288, height: 253))
    }

    func testContainKeepsTheWholeImageCentred() {
        let portrait = ImageShape(width: 300, height: 600)
        let frames = GridLayout(options: options(fit: .contain, columns: 2, rows: 1))
            .frames(for: [portrait, landscape], on: Canvas(width: 800, height: 400))
        XCTAssertEqual(frames[0].cell, TileRect(x: 0, y: 0, width: 400, height: 400))
        XCTAssertEqual(frames[0].image, TileRect(x: 100, y: 0, width: 200, height: 400), "pillarboxed")
        XCTAssertEqual(frames[1].image, TileRect(x: 400, y: 50, width: 400, height: 300), "letterboxed")
    }

    func testCaptionBandsAndTitleTakeTheirRoom() {
        var options = options(columns: 2, rows: 1)
        options.captionBand = { _ in 20 }
        options.titleBand = 30
        let frames = GridLayout(options: options).frames(for: shapes(2), on: Canvas(width: 800, height: 430))
        XCTAssertEqual(frames[0].cell, TileRect(x: 0, y: 30, width: 400, height: 400))
        XCTAssertEqual(frames[0].image, TileRect(x: 0, y: 30, width: 400, height: 380))
        XCTAssertEqual(frames[0].caption, TileRect(x: 0, y: 410, width: 400, height: 20))
    }

    // MARK: - Justified

    private func checkJustified(_ input: [ImageShape], canvas: Canvas, gap: Int, band: Int = 0,
                                file: StaticString = #filePath, line: UInt = #line) -> [Frame] {
        var options = options(gap: gap)
        options.captionBand = { _ in band }
        let frames = JustifiedLayout(options: options).frames(for: input, on: canvas)
        XCTAssertEqual(frames.count, input.count, file: file, line: line)
        for (frame, shape) in zip(frames, input) {
            let aspect = Double(shape.width) / Double(shape.height)
            // Whole, at its own shape: the height is the width's within a pixel of rounding.
            XCTAssertLessThanOrEqual(abs(Double(frame.image.height) - Double(frame.image.width) / aspect), 1.0,
                                     "\(frame.image) for \(shape)", file: file, line: line)
        }
        for (a, b) in zip(frames, frames.dropFirst()) {
            // In input order, left to right then top to bottom, never overlapping.
            if b.image.y == a.image.y {
                XCTAssertEqual(b.image.x, a.image.x + a.image.width + gap, "gap between images", file: file, line: line)
            } else {
                XCTAssertGreaterThanOrEqual(b.image.y, a.cell.y + a.cell.height + gap, "rows apart", file: file, line: line)
            }
        }
        let rows = Dictionary(grouping: frames, by: \.image.y)
        for (_, row) in rows {
            XCTAssertEqual(row.first!.image.x, gap, "a row starts at the margin", file: file, line: line)
            XCTAssertEqual(row.last!.image.x + row.last!.image.width, canvas.width - gap, "a row spans the width",
                           file: file, line: line)
        }
        let top = frames.map(\.image.y).min()!, bottom = frames.map { $0.cell.y + $0.cell.height }.max()!
        XCTAssertGreaterThanOrEqual(top, gap, file: file, line: line)
        XCTAssertLessThanOrEqual(bottom, canvas.height - gap, file: file, line: line)
        XCTAssertLessThanOrEqual(abs((top - gap) - (canvas.height - gap - bottom)), 1, "centred vertically",
                                 file: file, line: line)
        let heights = rows.values.map { $0.map(\.image.height).max()! }
        XCTAssertLessThanOrEqual(heights.max()!, 2 * heights.min()! + 1, "no row twice as tall as another",
                                 file: file, line: line)
        return frames
    }

    func testJustifiedRowsOfMixedShapes() {
        let mixed = [ImageShape(width: 1600, height: 1200), ImageShape(width: 600, height: 900),
                     ImageShape(width: 4000, height: 1000), ImageShape(width: 1000, height: 1000),
                     ImageShape(width: 1920, height: 1080), ImageShape(width: 800, height: 1200),
                     ImageShape(width: 1200, height: 800), ImageShape(width: 1024, height: 640)]
        for canvas in [Canvas(width: 1200, height: 800), Canvas(width: 2400, height: 1600)] {
            let frames = checkJustified(mixed, canvas: canvas, gap: 8, band: 20)
            XCTAssertGreaterThan(Set(frames.map(\.image.y)).count, 1, "more than one row on \(canvas)")
            let area = frames.reduce(0) { $0 + $1.cell.width * $1.cell.height }
            // Two rows of these (three would be taller than the canvas).
            XCTAssertGreaterThan(Double(area) / Double(canvas.width * canvas.height), 0.45, "fills the canvas")
        }
    }

    func testJustifiedWithoutGapAndWithPanoramas() {
        let panoramas = Array(repeating: ImageShape(width: 6000, height: 1000), count: 3)
            + Array(repeating: ImageShape(width: 1200, height: 800), count: 5)
        _ = checkJustified(panoramas, canvas: Canvas(width: 1800, height: 1200), gap: 0)
    }
}
