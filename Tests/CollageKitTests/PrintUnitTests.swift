import CollageKit
import XCTest

/// `--page`, `--dpi`, `--margin` as values: the page in pixels at a
/// resolution, lengths in every unit, and what is refused.
final class PrintUnitTests: XCTestCase {
    func testNamedPagesInPixels() throws {
        let cases: [(String, Int, String)] = [
            ("A4", 300, "2480x3508"), ("A4:landscape", 300, "3508x2480"), ("a4", 300, "2480x3508"),
            ("A5", 300, "1748x2480"), ("A3", 300, "3508x4961"), ("Letter", 300, "2550x3300"),
            ("Legal", 300, "2550x4200"), ("Tabloid", 300, "3300x5100"), ("Tabloid:landscape", 150, "2550x1650"),
            ("210x297mm", 300, "2480x3508"), ("8.5x11in", 300, "2550x3300"), ("21x29.7cm", 300, "2480x3508"),
            ("100x50mm:landscape", 254, "1000x500"), ("50x100mm:landscape", 254, "1000x500"),
        ]
        for (text, dpi, pixels) in cases {
            let page = try XCTUnwrap(PageSize(text), text)
            let (width, height) = page.pixels(at: dpi)
            XCTAssertEqual("\(width)x\(height)", pixels, "\(text) at \(dpi) dpi")
        }
        // A4 in points, as a PDF's page: 595.28 x 841.89.
        let a4 = try XCTUnwrap(PageSize("A4"))
        XCTAssertEqual(a4.width / 25.4 * 72, 595.28, accuracy: 0.005)
        XCTAssertEqual(a4.height / 25.4 * 72, 841.89, accuracy: 0.005)
    }

    func testPagesThatAreNotOnes() {
        for text in ["", "B4", "A4:portrait", "A4:", ":landscape", "210x297", "210x297px", "0x297mm", "210x0mm",
                     "-210x297mm", "210x297x3mm", "2001x10mm", "1e3x10mm", "nanx10mm", "210 x 297mm", "x297mm", "210xmm"] {
            XCTAssertNil(PageSize(text), "'\(text)' is not a page")
        }
    }

    func testLengthsInEveryUnit() throws {
        let cases: [(String, Int, Int)] = [
            ("10mm", 300, 118), ("1cm", 300, 118), ("0.5in", 300, 150), (".5in", 300, 150), ("24pt", 300, 100),
            ("72pt", 72, 72), ("12px", 300, 12), ("12px", 72, 12), ("0mm", 300, 0), ("0px", 300, 0), ("10MM", 300, 118),
        ]
        for (text, dpi, pixels) in cases {
            XCTAssertEqual(try XCTUnwrap(PrintLength(text), text).pixels(at: dpi), pixels, "\(text) at \(dpi) dpi")
        }
        for text in ["", "10", "mm", "-1mm", "1.5px", "1e2mm", "1001mm", "40in", "10 mm", "1..2mm", "65501px"] {
            XCTAssertNil(PrintLength(text), "'\(text)' is not a length")
        }
    }

    /// The resolution and margin a run uses: 300 dpi and 10 mm on a page,
    /// 72 dpi and none without one, the options' own when given.
    func testSettingsDefaults() throws {
        var settings = PrintSettings()
        XCTAssertEqual(settings.resolution, 72)
        XCTAssertEqual(settings.marginPixels, 0)
        settings.page = PageSize("A4")
        XCTAssertEqual(settings.resolution, 300)
        XCTAssertEqual(settings.marginPixels, 118)
        settings.dpi = 150
        settings.margin = PrintLength("1in")
        XCTAssertEqual(settings.resolution, 150)
        XCTAssertEqual(settings.marginPixels, 150)
    }
}
