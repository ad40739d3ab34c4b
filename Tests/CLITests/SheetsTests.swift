import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Output" and "Selection": --sheets cuts the whole input into
/// sheets of up to --max images, named with -0001 before the extension or
/// with {n} replaced by the 4-digit sheet number.
final class SheetsTests: CLITestCase {
    private func makeThirteen() -> [RGB] {
        makeFolder("in")
        let colours = Array(palette.prefix(13))
        for (index, colour) in colours.enumerated() {
            writeImage(colour, to: "in/img-" + String(format: "%02d", index + 1) + ".png")
        }
        return colours
    }

    /// 13 images, --max 6: out-0001.jpg (6), out-0002.jpg (6), out-0003.jpg
    /// (1 image, filling the whole 1200x800 canvas as a single tile).
    func testSheetsAreNumberedBeforeTheExtension() throws {
        let colours = makeThirteen()
        let result = try collage(["in", "--sheets", "--max", "6", "-o", "out.jpg"])
        assertSuccess(result, stdout: "out-0001.jpg\nout-0002.jpg\nout-0003.jpg\n")
        XCTAssertEqual(listingText(), ["in", "out-0001.jpg", "out-0002.jpg", "out-0003.jpg"],
                       "exactly three sheets, no temporary file, no out.jpg")
        if let sheet = decoded("out-0001.jpg") {
            XCTAssertEqual([sheet.width, sheet.height], [1200, 800])
            assertTiles(sheet, Array(colours[0..<6]))
        }
        if let sheet = decoded("out-0002.jpg") {
            XCTAssertEqual([sheet.width, sheet.height], [1200, 800])
            assertTiles(sheet, Array(colours[6..<12]))
        }
        if let sheet = decoded("out-0003.jpg") {
            XCTAssertEqual([sheet.width, sheet.height], [1200, 800])
            // One image: one tile of 1200x800, corners included.
            for (x, y) in [(2, 2), (1197, 2), (2, 797), (1197, 797), (600, 400)] {
                XCTAssertLessThanOrEqual(sheet.pixel(x: x, y: y).distance(to: colours[12]), 40,
                                         "sheet 3 at (\(x),\(y)) is \(sheet.pixel(x: x, y: y))")
            }
        }
    }

    /// `{n}` in the name: sheet_0001.png, sheet_0002.png, sheet_0003.png,
    /// listed in order on stdout; also in a folder and with --json.
    func testSheetsReplaceTheNPlaceholder() throws {
        let colours = makeThirteen()
        let result = try collage(["in", "--sheets", "--max", "6", "-o", "sheet_{n}.png"])
        assertSuccess(result, stdout: "sheet_0001.png\nsheet_0002.png\nsheet_0003.png\n")
        XCTAssertEqual(listingText(), ["in", "sheet_0001.png", "sheet_0002.png", "sheet_0003.png"])
        if let sheet = decoded("sheet_0002.png") { assertTiles(sheet, Array(colours[6..<12]), tolerance: 2) }

        makeFolder("sheets")
        let json = try collage(["in", "--sheets", "--max", "6", "--json", "-o", "sheets/{n}-contact.png"])
        XCTAssertEqual(json.status, 0, json.summary)
        XCTAssertEqual(json.stderr, [])
        let all = jsonEvents(json)
        let written = events(all, "written")
        XCTAssertEqual(written.map { $0["output"] as? String },
                       ["sheets/0001-contact.png", "sheets/0002-contact.png", "sheets/0003-contact.png"])
        XCTAssertEqual(written.map { ($0["images"] as? [String])?.count }, [6, 6, 1])
        XCTAssertEqual(written.last?["images"] as? [String], ["in/img-13.png"])
        XCTAssertEqual(all.last?["written"] as? Int, 3)
        XCTAssertEqual(all.last?["used"] as? Int, 13)
        XCTAssertEqual(listingText("sheets"), ["0001-contact.png", "0002-contact.png", "0003-contact.png"])
    }

    /// Without --sheets the same input is one collage of 6 (the cap).
    func testWithoutSheetsOnlyTheCapIsUsed() throws {
        let colours = makeThirteen()
        let result = try collage(["in", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "out.png\n")
        if let picture = decoded("out.png") { assertTiles(picture, Array(colours[0..<6]), tolerance: 2) }
        XCTAssertEqual(listingText(), ["in", "out.png"])
    }
}
