import XCTest
@testable import Vips

/// `Difference` on pixels made here: where a change is found, what the
/// threshold, anti-aliasing, ignored rectangles and sizes do to the count.
final class DifferenceTests: XCTestCase {
    private func picture(size: (Int, Int) = (40, 30), _ paint: @escaping (Int, Int) -> RGB) throws -> FullPicture {
        try FullPicture(PixelBuffer(width: size.0, height: size.1, paint: paint))
    }

    private let white: (Int, Int) -> RGB = { _, _ in .white }

    private func compare(_ a: FullPicture, _ b: FullPicture, _ change: (inout DifferenceOptions) -> Void = { _ in })
        throws -> Difference {
        var options = DifferenceOptions()
        change(&options)
        return try Difference.compare(a, b, options: options)
    }

    func testOnePixelChangeIsFoundWhereItIs() throws {
        let before = try picture(white)
        let after = try picture { x, y in x == 5 && y == 7 ? RGB(red: 255, green: 0, blue: 0) : .white }
        let difference = try compare(before, after)
        XCTAssertEqual(difference.pixels, 1)
        XCTAssertEqual(difference.total, 40 * 30)
        XCTAssertTrue(difference.sameSize)
        let mask = try difference.maskPixels()
        XCTAssertEqual(mask.pixel(x: 5, y: 7), .white)
        XCTAssertEqual(mask.pixel(x: 6, y: 7), .black)
        XCTAssertEqual(mask.pixel(x: 5, y: 6), .black)
    }

    /// Only the rectangle where the bytes differ is compared and kept: two
    /// changes in far corners are both found, the mask is exact between
    /// them, and what is kept is their bounding box, not the picture.
    func testChangesInFarCornersAreFoundAndOnlyTheirBoxIsKept() throws {
        let before = try picture(size: (200, 100), white)
        let after = try picture(size: (200, 100)) { x, y in
            (x == 10 && y == 3) || (x == 150 && y == 80) ? .black : .white
        }
        let difference = try compare(before, after)
        XCTAssertEqual(difference.pixels, 2)
        XCTAssertEqual(difference.byteCount, 141 * 78, "the box from (10, 3) to (150, 80)")
        let mask = try difference.maskPixels()
        for y in 0..<100 {
            for x in 0..<200 {
                let counted = (x == 10 && y == 3) || (x == 150 && y == 80)
                XCTAssertEqual(mask.pixel(x: x, y: y), counted ? .white : .black, "(\(x), \(y))")
            }
        }
        XCTAssertEqual(try compare(before, try picture(size: (200, 100), white)).byteCount, 0)
    }

    func testIdenticalPixelsDoNotDiffer() throws {
        let paint: (Int, Int) -> RGB = { x, y in RGB(red: UInt8(x * 6), green: UInt8(y * 8), blue: 99) }
        XCTAssertEqual(try compare(picture(paint), picture(paint)).pixels, 0)
    }

    /// A grey step of d changes the YIQ distance by 0.5053 d²: at the
    /// default threshold 0.1 (at most 35215 × 0.01) 26 is below, 27 above.
    func testThresholdBelowAndAbove() throws {
        let base = RGB(red: 100, green: 100, blue: 100)
        let flat = try picture { _, _ in base }
        func stepped(_ step: UInt8) throws -> FullPicture {
            try picture { x, y in x == 20 && y == 15 ? RGB(red: 100 + step, green: 100 + step, blue: 100 + step) : base }
        }
        XCTAssertEqual(try compare(flat, stepped(26)).pixels, 0)
        XCTAssertEqual(try compare(flat, stepped(27)).pixels, 1)
        XCTAssertEqual(try compare(flat, stepped(27)) { $0.threshold = 0.2 }.pixels, 0)
        XCTAssertEqual(try compare(flat, stepped(1)) { $0.threshold = 0 }.pixels, 1)
    }

    /// A black/white edge drawn at x = 10.3, then at 10.6: only column 10's
    /// grey changes, which anti-aliasing explains.
    func testAntiAliasedEdgeMovedBySubPixelIsNotCounted() throws {
        func edge(_ at: Double) throws -> FullPicture {
            try picture { x, _ in
                let cover = min(1, max(0, at - Double(x)))  // how much of the pixel is black
                let value = UInt8((255 * (1 - cover)).rounded())
                return RGB(red: value, green: value, blue: value)
            }
        }
        let (before, after) = (try edge(10.3), try edge(10.6))
        XCTAssertEqual(try compare(before, after).pixels, 0)
        XCTAssertEqual(try compare(before, after) { $0.countAntiAliased = true }.pixels, 30, "--count-aa counts the column")
        // A real change beside the edge is still counted.
        let marked = try picture { x, y in
            if x == 30 && y == 3 { return RGB(red: 0, green: 0, blue: 255) }
            let cover = min(1, max(0, 10.6 - Double(x)))
            let value = UInt8((255 * (1 - cover)).rounded())
            return RGB(red: value, green: value, blue: value)
        }
        XCTAssertEqual(try compare(before, marked).pixels, 1)
    }

    func testIgnoredRectanglesAreLeftOut() throws {
        let before = try picture(white)
        let after = try picture { x, y in (x == 2 && y == 2) || (x == 30 && y == 20) ? .black : .white }
        XCTAssertEqual(try compare(before, after).pixels, 2)
        XCTAssertEqual(try compare(before, after) { $0.ignore = [PixelRect(x: 25, y: 15, width: 10, height: 10)] }.pixels, 1)
        XCTAssertEqual(try compare(before, after) {
            $0.ignore = [PixelRect(x: 0, y: 0, width: 3, height: 3), PixelRect(x: 30, y: 20, width: 1, height: 1)]
        }.pixels, 0)
    }

    /// 40x30 against 50x30: compared on the common part, which is the
    /// same, nothing changed; pixelmatch's count (`raw`) holds the 10x30 rest.
    func testDifferentSizesAreComparedOnTheCommonPart() throws {
        let small = try picture(white), wide = try picture(size: (50, 30), white)
        let difference = try compare(small, wide)
        XCTAssertFalse(difference.sameSize)
        XCTAssertEqual(difference.total, 50 * 30)
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertEqual(difference.raw, 10 * 30)
        XCTAssertEqual(try compare(wide, small).raw, 10 * 30)
        let tall = try picture(size: (30, 40), white)
        XCTAssertEqual(try compare(small, tall).raw, 40 * 40 - 30 * 30)
        let marked = try picture(size: (50, 30)) { x, y in x == 3 && y == 4 ? .black : .white }
        XCTAssertEqual(try compare(small, marked).pixels, 1, "a change in the common part is counted")
    }

    /// Red where counted, over a faded grey copy of the current picture.
    func testDifferencePictureIsRedOverFadedGrey() throws {
        let half: (Int, Int) -> RGB = { x, _ in x < 20 ? .black : .white }
        let current = try picture { x, y in x == 30 && y == 7 ? .black : half(x, y) }
        let difference = try compare(picture(half), current)
        XCTAssertEqual(difference.pixels, 1)
        let shown = try difference.picture(of: current, width: 40, height: 30)
        XCTAssertEqual(shown.pixel(x: 30, y: 7), RGB(red: 255, green: 0, blue: 0))
        XCTAssertEqual(shown.pixel(x: 5, y: 5), RGB(red: 191, green: 191, blue: 191), "black faded to light grey")
        XCTAssertEqual(shown.pixel(x: 35, y: 20), .white)
        // Shrunk to a quarter, the one pixel still shows red.
        let small = try difference.picture(of: current, width: 10, height: 8)
        let reds = (0..<small.height).flatMap { y in (0..<small.width).map { small.pixel(x: $0, y: y) } }
            .filter { $0 == RGB(red: 255, green: 0, blue: 0) }
        XCTAssertEqual(reds.count, 1)
    }
}
