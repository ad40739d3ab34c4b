import Glibc
import XCTest
@testable import Vips

/// The full-size difference picture as `--diff-images` and `--html` write
/// it (`Difference.write(of:to:)`, a PNG of a palette made in one sweep):
/// the pixels libvips' pipeline draws for the same difference at 1:1.
final class DifferencePNGTests: XCTestCase {
    /// Many colours (every faded grey and its tint), a band of rows moved
    /// down 2, a recoloured box and a taller current page.
    private func pair() throws -> (FullPicture, FullPicture) {
        func paint(_ x: Int, _ y: Int) -> RGB {
            RGB(red: UInt8((x * 37 + y * 11) & 255), green: UInt8((x * x + y * 3) & 255), blue: UInt8((x ^ y) & 255))
        }
        let baseline = try FullPicture(PixelBuffer(width: 96, height: 80) { x, y in y < 30 ? .white : paint(x, y) })
        let current = try FullPicture(PixelBuffer(width: 96, height: 84) { x, y in
            if (60..<70).contains(y) && (20..<40).contains(x) { return RGB(red: 0, green: 90, blue: 200) }
            if y < 32 { return .white }
            return y - 2 < 80 ? paint(x, y - 2) : .white
        })
        return (baseline, current)
    }

    /// Writes `body`'s picture to a file and decodes it; also returns its bytes.
    private func written(_ body: (Int32) throws -> Void) throws -> (PixelBuffer, [UInt8]) {
        var template = Array("/tmp/collage-difference-XXXXXX.png".utf8CString)
        let descriptor = mkstemps(&template, 4)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { close(descriptor); unlink(path) }
        try body(descriptor)
        let bytes = try readBytes(path)
        return (try ImageFile.decode(bytes: bytes), bytes)
    }

    private func assertSamePixels(_ a: PixelBuffer, _ b: PixelBuffer, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual([a.width, a.height], [b.width, b.height], file: file, line: line)
        var differing = 0
        for y in 0..<min(a.height, b.height) {
            for x in 0..<min(a.width, b.width) where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) {
                if differing == 0 { XCTFail("(\(x), \(y)): \(a.pixel(x: x, y: y)) vs \(b.pixel(x: x, y: y))", file: file, line: line) }
                differing += 1
            }
        }
        XCTAssertEqual(differing, 0, file: file, line: line)
    }

    func testTheWrittenPictureHasThePixelsOfTheDrawnOne() throws {
        let (baseline, current) = try pair()
        let difference = try Difference.compare(baseline, current, options: DifferenceOptions())
        XCTAssertFalse(difference.shifts.isEmpty, "a band moved")
        XCTAssertGreaterThan(difference.pixels, 0, "the box is a change")
        let drawn = try difference.picture(of: current, width: difference.width, height: difference.height)
        let (png, bytes) = try written { try difference.write(of: current, to: $0) }
        assertSamePixels(png, drawn)
        XCTAssertEqual(png.pixel(x: 25, y: 65), RGB(red: 255, green: 0, blue: 0))
        XCTAssertEqual(bytes[25], 3, "a palette")
        // The current page kept on disc: the same picture.
        let onDisc = try current.keptOnDisc()
        let again = try Difference.compare(baseline, onDisc, options: DifferenceOptions())
        assertSamePixels(try written { try again.write(of: onDisc, to: $0) }.0, drawn)
        // A region of it, partly beyond the page (white there), as a cell's panel draws it.
        for region in [PixelRect(x: 10, y: 55, width: 40, height: 20), PixelRect(x: 80, y: 70, width: 30, height: 20)] {
            let expected = try ImageFile.materialise(difference.marked(current, scale: 1).embedded(
                x: -region.x, y: -region.y, width: region.width, height: region.height, copyEdge: false, background: 255))
            assertSamePixels(try difference.picture(of: current, region: region, width: region.width, height: region.height),
                             expected)
            assertSamePixels(try again.picture(of: onDisc, region: region, width: region.width, height: region.height),
                             expected)
        }
        // A current narrower and shorter than the compared area: white beyond it.
        let wide = try FullPicture(PixelBuffer(width: 120, height: 90) { x, _ in x < 50 ? .black : .white })
        let narrow = try FullPicture(PixelBuffer(width: 100, height: 70) { x, y in x < 50 || (x == 70 && y == 9) ? .black : .white })
        let sizes = try Difference.compare(wide, narrow, options: DifferenceOptions())
        assertSamePixels(try written { try sizes.write(of: narrow, to: $0) }.0,
                         try sizes.picture(of: narrow, width: sizes.width, height: sizes.height))
    }

    func testAnAddedPictureIsAllRed() throws {
        let (png, _) = try written { try Difference.writeAllMarked(width: 30, height: 20, to: $0) }
        XCTAssertEqual([png.width, png.height], [30, 20])
        for y in 0..<20 { for x in 0..<30 { XCTAssertEqual(png.pixel(x: x, y: y), RGB(red: 255, green: 0, blue: 0)) } }
    }

    /// A full disc: one line saying so, as any write that fails.
    func testAFullDiscIsSaid() throws {
        let (baseline, current) = try pair()
        let difference = try Difference.compare(baseline, current, options: DifferenceOptions())
        let full = open("/dev/full", O_WRONLY)
        try XCTSkipIf(full < 0, "no /dev/full")
        defer { close(full) }
        XCTAssertThrowsError(try difference.write(of: current, to: full)) { error in
            XCTAssertEqual("\(error)".split(separator: "\n").count, 1)
            XCTAssertTrue("\(error)".contains("No space left on device"), "\(error)")
        }
    }

    /// The page small (a cell's panel): boxes of whole pixels averaged, every
    /// changed pixel still red and every explained one yellow, however far
    /// it is shrunk; the same from a page kept on disc.
    func testTheSmallPageAveragesBoxesAndKeepsEveryMark() throws {
        let stripes: (Int, Int) -> RGB = { x, y in x < 20 && y < 20 && x % 2 == 0 ? .black : .white }
        let baseline = try FullPicture(PixelBuffer(width: 80, height: 60, paint: stripes))
        let current = try FullPicture(PixelBuffer(width: 80, height: 60) { x, y in
            (x, y) == (41, 33) || (x, y) == (7, 50) ? RGB(red: 0, green: 0, blue: 160) : stripes(x, y)
        })
        let difference = try Difference.compare(baseline, current, options: DifferenceOptions())
        XCTAssertEqual(difference.pixels, 2)
        for picture in [current, try current.keptOnDisc()] {
            let page = try difference.page(of: picture, width: 20, height: 15)
            let small = try page.picture.pixels()
            XCTAssertEqual([small.width, small.height], [20, 15])
            XCTAssertEqual(small.pixel(x: 2, y: 2), RGB(red: 128, green: 128, blue: 128), "2 black and 2 white columns")
            let shown = try difference.picture(of: page, width: 20, height: 15)
            let red = RGB(red: 255, green: 0, blue: 0)
            let reds = (0..<15).flatMap { y in (0..<20).filter { shown.pixel(x: $0, y: y) == red }.map { ($0, y) } }
            XCTAssertEqual(reds.map { "\($0)" }, ["(10, 8)", "(1, 12)"], "each change in the box that holds it")
        }
    }

    /// A panel shrunk from memory: boxes of whole pixels averaged, every
    /// pixel in one box (a third of 90 columns black: 10 black of 30).
    func testAPanelIsShrunkByAveragingBoxes() throws {
        let picture = try FullPicture(PixelBuffer(width: 90, height: 61) { x, y in x < 30 || (x == 89 && y == 60) ? .black : .white })
        let shrunk = try picture.fitted(width: 30, height: 30)
        XCTAssertEqual([shrunk.width, shrunk.height], [30, 20])
        XCTAssertEqual((0..<30).map { shrunk.pixel(x: $0, y: 5).red }, Array(repeating: 0, count: 10) + Array(repeating: 255, count: 20))
        XCTAssertEqual(shrunk.pixel(x: 29, y: 19).red, 255 - 255 / 12, "one black pixel of the last box's 3x4")
    }
}
