import Foundation
import Vips
import XCTest

/// `--size WIDTHx`: each sheet as tall as its content, and every report of
/// its size (the `written` event, the file, `--dry-run`, `--html`) the same.
final class NaturalHeightTests: CLITestCase {
    private let colours = [RGB(red: 200, green: 60, blue: 60), RGB(red: 60, green: 160, blue: 60),
                           RGB(red: 60, green: 60, blue: 200), RGB(red: 220, green: 180, blue: 40)]

    /// `count` flat images, 4:3 and 3:2 in turn, named in order.
    private func writeImages(_ count: Int) {
        makeFolder("in")
        for index in 0..<count {
            let (width, height) = index % 2 == 0 ? (320, 240) : (300, 200)
            writeImage(colours[index % colours.count], to: "in/img\(10 + index).png", width: width, height: height)
        }
    }

    private func rects(_ result: ProcessResult) -> [(x: Int, y: Int, w: Int, h: Int)] {
        events(jsonEvents(result), "placed").map {
            ($0["x"] as? Int ?? -1, $0["y"] as? Int ?? -1, $0["width"] as? Int ?? -1, $0["height"] as? Int ?? -1)
        }
    }

    private func written(_ result: ProcessResult) -> (width: Int, height: Int)? {
        events(jsonEvents(result), "written").first.map { ($0["width"] as? Int ?? -1, $0["height"] as? Int ?? -1) }
    }

    /// The file, the `written` event, `--dry-run`'s `planned` and `--html`'s
    /// `<img>` all give the same size; returns it and the placed rectangles.
    private func run(_ arguments: [String]) throws -> (size: (width: Int, height: Int), rects: [(x: Int, y: Int, w: Int, h: Int)]) {
        let result = try collage(arguments + ["--json", "in", "-o", "n.png", "--html", "n.html"])
        XCTAssertEqual(result.status, 0, result.summary)
        let size = try XCTUnwrap(written(result), result.summary)
        let picture = try XCTUnwrap(decoded("n.png"))
        XCTAssertEqual([picture.width, picture.height], [size.width, size.height], "the file is the size reported")
        let planned = try collage(arguments + ["--json", "--dry-run", "in", "-o", "n.png"])
        let plan = try XCTUnwrap(events(jsonEvents(planned), "planned").first, planned.summary)
        XCTAssertEqual([plan["width"] as? Int, plan["height"] as? Int], [size.width, size.height], "--dry-run says it")
        let page = String(decoding: try XCTUnwrap(contents(path("n.html"))), as: UTF8.self)
        XCTAssertTrue(page.contains("width=\"\(size.width)\" height=\"\(size.height)\""), "--html says it")
        return (size, rects(result))
    }

    func testJustifiedRowsAreAQuarterOfTheWidthAndTheSheetIsAsTallAsThey() throws {
        writeImages(8)
        let (size, placed) = try run(["--layout", "justified", "--gap", "8", "--max", "8", "--size", "1200x"])
        XCTAssertEqual(size.width, 1200)
        XCTAssertEqual(placed.count, 8)
        XCTAssertEqual(placed.map(\.y).min(), 8, "the first row starts a gap below the top")
        XCTAssertEqual(size.height - placed.map { $0.y + $0.h }.max()!, 8, "and the last ends a gap above the bottom")
        // 8 images of 4:3 and 3:2 at about 300 high make 2.9 rows of 1184: three, of 3, 3 and 2.
        XCTAssertEqual(Set(placed.map(\.y)).count, 3)
        for rect in placed {
            XCTAssertTrue((250...450).contains(rect.h), "rows of about 1200/4: \(rect)")
            XCTAssertTrue(rect.x >= 8 && rect.x + rect.w <= 1192, "\(rect)")
        }
        // Rows span the width: each row's last image ends at the right margin.
        let rowEnds = Dictionary(grouping: placed, by: \.y).values.map { $0.map { $0.x + $0.w }.max()! }
        XCTAssertTrue(rowEnds.allSatisfy { abs($0 - 1192) <= 1 }, "\(rowEnds)")

        // Captions and a title make it taller by their bands, not by white space.
        let captioned = try run(["--layout", "justified", "--gap", "8", "--max", "8", "--size", "1200x",
                                 "--label", "{name}", "--title", "{count} photos"])
        XCTAssertGreaterThan(captioned.size.height, size.height + 3 * 20 + 20)
        XCTAssertGreaterThan(captioned.rects.map(\.y).min()!, 8 + 20, "the title is above the first row")
        let below = captioned.size.height - captioned.rects.map { $0.y + $0.h }.max()!
        XCTAssertTrue((8 + 15...8 + 45).contains(below), "the last row's caption band and a gap: \(below)")
    }

    func testGridCellsAreFourByThree() throws {
        writeImages(10)
        let plain = try run(["--tile", "4x", "--max", "10", "--size", "1200x"])
        XCTAssertEqual([plain.size.width, plain.size.height], [1200, 3 * 225])
        XCTAssertTrue(plain.rects.allSatisfy { $0.w == 300 && $0.h == 225 }, "\(plain.rects)")
        // cellW = round((1200 - 5 * 10) / 4) = 288 (287.5), image 216 high: 3 rows and 4 gaps.
        let gapped = try run(["--tile", "4x", "--max", "10", "--size", "1200x", "--gap", "10"])
        XCTAssertEqual(gapped.size.height, 3 * 216 + 4 * 10)
        XCTAssertTrue(gapped.rects.allSatisfy { $0.w == 288 && $0.h == 216 }, "\(gapped.rects)")
    }

    func testAutoAboveSixChoosesColumnsAsOnTheThreeByTwoCanvas() throws {
        writeImages(12)
        // On 2400x1600, twelve are 4x3 cells; as tall as 4:3 cells of 600: 450 each.
        let sheet = try run(["--max", "12", "--size", "2400x"])
        XCTAssertEqual([sheet.size.width, sheet.size.height], [2400, 1350])
        XCTAssertTrue(sheet.rects.allSatisfy { $0.w == 600 && $0.h == 450 }, "\(sheet.rects)")
    }

    /// The seed grid at WIDTHx is the 3:2 canvas: the default collage, byte for byte.
    func testSeedAtWidthIsTheDefaultCanvas() throws {
        writeImages(5)
        let natural = try collage(["--size", "1200x", "in", "-o", "a.png"])
        let fixed = try collage(["--size", "1200x800", "in", "-o", "b.png"])
        XCTAssertEqual([natural.status, fixed.status], [0, 0], natural.summary + fixed.summary)
        XCTAssertEqual(contents(path("a.png")), contents(path("b.png")))
    }

    func testAHeightAloneOrATooTallSheetIsAUsageError() throws {
        writeImages(2)
        assertFailure(try collage(["--size", "x800", "in", "-o", "x.png"]), status: 64, mentions: ["x800", "WIDTHx"])
        assertFailure(try collage(["--size", "1200x", "--tile", "1x", "--max", "400", "--sheets", "in", "-o", "x.png"]),
                      status: 64, mentions: ["--size 1200x", "65500"])
        XCTAssertFalse(exists("x.png"))
    }
}
