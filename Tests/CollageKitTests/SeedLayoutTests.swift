import XCTest
@testable import CollageKit

/// The seed grid as pure arithmetic: rows, columns, tile sizes and
/// positions, with halves rounding away from zero.
final class SeedLayoutTests: XCTestCase {
    /// n -> (rows, columns), straight from the contract's formula.
    private let shapes: [Int: (Int, Int)] = [
        1: (1, 1), 2: (1, 2), 3: (2, 2), 4: (2, 2), 5: (2, 3), 6: (2, 3),
        7: (2, 4), 8: (2, 4), 9: (2, 5), 10: (2, 5), 11: (2, 6),
    ]

    func testRowsAndColumns() {
        for (n, (rows, columns)) in shapes {
            let layout = SeedGrid(count: n, canvasWidth: 1200, canvasHeight: 800)
            XCTAssertEqual(layout.rows, rows, "rows for n=\(n)")
            XCTAssertEqual(layout.columns, columns, "columns for n=\(n)")
        }
    }

    func testHalvesRoundAwayFromZero() {
        XCTAssertEqual(SeedGrid(count: 5, canvasWidth: 1200, canvasHeight: 800).columns, 3, "2.5 -> 3")
        XCTAssertEqual(SeedGrid(count: 3, canvasWidth: 1200, canvasHeight: 800).columns, 2, "1.5 -> 2")
        XCTAssertEqual(SeedGrid(count: 7, canvasWidth: 1200, canvasHeight: 800).columns, 4, "3.5 -> 4")
        XCTAssertEqual(SeedGrid(count: 9, canvasWidth: 1200, canvasHeight: 800).columns, 5, "4.5 -> 5")
        XCTAssertEqual(SeedLayoutTestsHelpers.round(5, 2), 3)
        XCTAssertEqual(SeedGrid.roundedQuotient(5, 2), 3)
        XCTAssertEqual(SeedGrid.roundedQuotient(1001, 2), 501, "500.5 -> 501")
        XCTAssertEqual(SeedGrid.roundedQuotient(701, 2), 351, "350.5 -> 351")
        XCTAssertEqual(SeedGrid.roundedQuotient(1001, 3), 334, "333.67 -> 334")
        XCTAssertEqual(SeedGrid.roundedQuotient(1000, 3), 333, "333.33 -> 333")
        XCTAssertEqual(SeedGrid.roundedQuotient(1001, 4), 250, "250.25 -> 250")
        XCTAssertEqual(SeedGrid.roundedQuotient(1001, 5), 200, "200.2 -> 200")
        XCTAssertEqual(SeedGrid.roundedQuotient(7, 2), 4, "3.5 -> 4")
        XCTAssertEqual(SeedGrid.roundedQuotient(6, 4), 2, "1.5 -> 2")
        XCTAssertEqual(SeedGrid.roundedQuotient(5, 4), 1, "1.25 -> 1")
    }

    func testTileSizesOnTheDefaultCanvas() {
        let sizes: [Int: (Int, Int)] = [1: (1200, 800), 2: (600, 800), 3: (600, 400), 4: (600, 400),
                                        5: (400, 400), 6: (400, 400), 7: (300, 400), 9: (240, 400)]
        for (n, (width, height)) in sizes {
            let layout = SeedGrid(count: n, canvasWidth: 1200, canvasHeight: 800)
            XCTAssertEqual(layout.tileWidth, width, "tile width for n=\(n)")
            XCTAssertEqual(layout.tileHeight, height, "tile height for n=\(n)")
        }
    }

    func testTileSizesOnAnAwkwardCanvas() {
        let sizes: [Int: (Int, Int)] = [1: (1001, 701), 2: (501, 701), 3: (501, 351), 4: (501, 351),
                                        5: (334, 351), 6: (334, 351), 7: (250, 351), 9: (200, 351)]
        for (n, (width, height)) in sizes {
            let layout = SeedGrid(count: n, canvasWidth: 1001, canvasHeight: 701)
            XCTAssertEqual(layout.tileWidth, width, "tile width for n=\(n)")
            XCTAssertEqual(layout.tileHeight, height, "tile height for n=\(n)")
            XCTAssertEqual(layout.canvasWidth, 1001)
            XCTAssertEqual(layout.canvasHeight, 701)
        }
    }

    func testPositionsFillRowByRow() {
        let five = SeedGrid(count: 5, canvasWidth: 1200, canvasHeight: 800)
        let expected = [(0, 0), (400, 0), (800, 0), (0, 400), (400, 400)]
        for (index, (x, y)) in expected.enumerated() {
            XCTAssertEqual(five.tile(index), TileRect(x: x, y: y, width: 400, height: 400), "image \(index)")
        }
        // Rounding up: the last column reaches one pixel past the canvas (clipped when placed).
        let awkward = SeedGrid(count: 6, canvasWidth: 1001, canvasHeight: 701)
        XCTAssertEqual(awkward.tile(5), TileRect(x: 668, y: 351, width: 334, height: 351))
        XCTAssertEqual(awkward.tile(5).x + awkward.tile(5).width, 1002)
        // Rounding down: a column of canvas is left over on the right.
        let seven = SeedGrid(count: 7, canvasWidth: 1001, canvasHeight: 701)
        XCTAssertEqual(seven.tile(3), TileRect(x: 750, y: 0, width: 250, height: 351))
        XCTAssertEqual(seven.tile(6), TileRect(x: 500, y: 351, width: 250, height: 351))
    }

    func testMatchesTheContractFormulaEverywhere() {
        for n in 1...24 {
            for (width, height) in [(1200, 800), (1001, 701), (999, 333), (640, 480), (7, 5), (65_500, 3)] {
                let layout = SeedGrid(count: n, canvasWidth: width, canvasHeight: height)
                let rows = n < 3 ? 1 : 2
                let columns = SeedLayoutTestsHelpers.round(n, rows)
                let what = "n=\(n) on \(width)x\(height)"
                XCTAssertEqual(layout.rows, rows, what)
                XCTAssertEqual(layout.columns, columns, what)
                XCTAssertEqual(layout.tileWidth, max(1, SeedLayoutTestsHelpers.round(width, columns)), what)
                XCTAssertEqual(layout.tileHeight, max(1, SeedLayoutTestsHelpers.round(height, rows)), what)
                for index in 0..<n {
                    let rect = layout.tile(index)
                    XCTAssertEqual(rect.x, (index % columns) * layout.tileWidth, what)
                    XCTAssertEqual(rect.y, (index / columns) * layout.tileHeight, what)
                }
            }
        }
    }

    func testTinyCanvasKeepsOnePixelTiles() {
        let layout = SeedGrid(count: 6, canvasWidth: 1, canvasHeight: 1)
        XCTAssertEqual(layout.tileWidth, 1)
        XCTAssertEqual(layout.tileHeight, 1)
    }
}

enum SeedLayoutTestsHelpers {
    /// round(a / b), halves away from zero, through floating point: an
    /// independent check of the integer formula.
    static func round(_ a: Int, _ b: Int) -> Int {
        Int((Double(a) / Double(b)).rounded(.toNearestOrAwayFromZero))
    }
}
