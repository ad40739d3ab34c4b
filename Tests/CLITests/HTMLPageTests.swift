import Foundation
import Glibc
import Vips
import XCTest

/// `--html` in a real browser (Debian's chromium, headless, from a file):
/// one area per image at its rectangle, a click at each tile's centre lands
/// on its area, and each link, resolved by the browser against the page's
/// address, is the very file that was placed.
final class HTMLPageTests: CLITestCase {
    /// Awkward names: spaces, `#`, `?`, `%`, `:` and a byte that is not UTF-8.
    private let names: [[UInt8]] = [b("a b.png"), b("hash#1.png"), b("what?.png"), b("pct%41.png"),
                                    b("caf") + [0xE9] + b(".png"), b("x:y.png"), b("sub dir/z z.png")]

    private func writeInputs() {
        makeFolder("photos")
        makeFolder("photos/sub dir")
        for (index, name) in names.enumerated() {
            writeImage(palette[index], to: b("photos/") + name, width: 320, height: 240)
        }
    }

    func testEveryTileLinksToItsFileInABrowser() throws {
        writeInputs()
        makeFolder("work")
        makeFolder("site")
        makeFolder("sheets")
        // Relative paths through `..` and a symbolic link to the folder of photos.
        symbolicLink(path("photos"), "work/linked")
        let result = try collage(["--sheets", "--max", "4", "--size", "1600x600", "--label", "{stem}", "--json",
                                  "linked", "-o", "../sheets/s-{n}.png", "--html", "../site/index.html"],
                                 directory: path("work"))
        let events = assertValidEventStream(result, "--html")
        XCTAssertEqual(result.status, 0, result.summary)
        let placed = self.events(events, "placed"), written = self.events(events, "written")
        XCTAssertEqual(placed.count, names.count)
        XCTAssertEqual(written.count, 2)
        let page = String(decoding: contents("site/index.html") ?? [], as: UTF8.self)
        XCTAssertEqual(page.components(separatedBy: "<area shape=\"rect\"").count - 1, names.count, page)
        XCTAssertFalse(page.contains("<script"), "the page needs no script")

        let report = try browse(path("site/index.html"))
        let areas = report["areas"] as? [[Any]] ?? []
        XCTAssertEqual(areas.count, placed.count, "one area per image")
        for (area, event) in zip(areas, placed) {
            let href = area[0] as? String ?? ""
            let x = event["x"] as? Int ?? -1, y = event["y"] as? Int ?? -1
            let w = event["width"] as? Int ?? -1, h = event["height"] as? Int ?? -1
            XCTAssertEqual(area[1] as? String, "\(x),\(y),\(x + w),\(y + h)", "coords are the placed rectangle")
            XCTAssertEqual(area[2] as? String, event["label"] as? String, "title is the caption")
            XCTAssertEqual(area[3] as? String, event["label"] as? String, "alt is the caption")
            XCTAssertEqual(area[4] as? String, "AREA", "a click at the tile's centre lands on its area: \(href)")
            XCTAssertEqual(area[5] as? String, href)
            // The file the browser would open: the URL's path (a query or a
            // fragment would mean the name was cut at a `?` or `#`).
            XCTAssertEqual(area[7] as? String, "", "\(href) has no query or fragment")
            let target = fileBytes("file://" + (area[6] as? String ?? ""))
            let input = path(b("work/")) + (pathBytes(event, "path") ?? [])
            XCTAssertNotNil(inode(target), "\(href) resolves to a file")
            XCTAssertEqual(inode(target), inode(input), "\(href) is the placed input")
        }
        let sheets = report["sheets"] as? [[Any]] ?? []
        XCTAssertEqual(sheets.count, 2)
        for (sheet, event) in zip(sheets, written) {
            XCTAssertEqual(inode(fileBytes(sheet[0] as? String ?? "")),
                           inode(path(b("work/")) + (pathBytes(event, "output") ?? [])), "the img is the sheet")
            XCTAssertEqual(sheet[1] as? Int, 1600, "the sheet loaded")
            XCTAssertEqual((sheet[2] as? NSNumber)?.intValue, 1600, "shown at its natural size, not scaled to the window")
        }
    }

    func testScreenshotShowsTheSheets() throws {
        guard haveProgram("chromium") else { throw XCTSkip("chromium is not installed (scripts/test installs it)") }
        makeFolder("in")
        for index in 0..<4 { writeImage(palette[index], to: "in/\(index).png", width: 320, height: 240) }
        let result = try collage(["in", "-o", "c.png", "--html", "index.html"])
        XCTAssertEqual(result.status, 0, result.summary)
        let shot = try runProcess([b("chromium"), b("--headless"), b("--no-sandbox"), b("--disable-gpu"),
                                   b("--user-data-dir=" + path(".chromium")), b("--window-size=1400,1000"),
                                   b("--screenshot=" + path("shot.png")), b("file://" + path("index.html"))],
                                  timeout: 120)
        XCTAssertEqual(shot.status, 0, shot.summary)
        guard let picture = decoded("shot.png") else { return }
        // The first tile (pure red, 600x400 on the sheet) shows as red pixels.
        var red = 0
        for y in stride(from: 0, to: picture.height, by: 4) {
            for x in stride(from: 0, to: picture.width, by: 4) where picture.pixel(x: x, y: y).distance(to: palette[0]) < 40 {
                red += 1
            }
        }
        XCTAssertGreaterThan(red, 600 * 400 / 16 * 8 / 10, "the sheet is drawn at natural size")
    }

    func testAFailedRunKeepsThePreviousPage() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        write(b("old page"), to: "index.html")
        assertFailure(try collage(["in", "-o", "missing/c.png", "--html", "index.html"]), status: 73)
        XCTAssertEqual(contents("index.html"), b("old page"))
        makeFolder("empty")
        assertFailure(try collage(["empty", "-o", "c.png", "--html", "index.html"]), status: 66)
        XCTAssertEqual(contents("index.html"), b("old page"))
        XCTAssertEqual(litter(), [])
    }

    func testAPageThatCannotBeWrittenIsOneLineBeforeAnyImage() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        assertFailure(try collage(["in", "-o", "c.png", "--html", "nowhere/index.html"]), status: 73,
                      mentions: ["nowhere"])
        XCTAssertFalse(exists("c.png"), "checked before the collage was made")
    }

    func testDryRunAndWatchRefuseHTML() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        assertFailure(try collage(["--dry-run", "in", "--html", "index.html"]), status: 64, mentions: ["--html"])
        assertFailure(try collage(["--watch", "in", "--html", "index.html"]), status: 64, mentions: ["--html"])
    }

    func testUnchangedSheetsAreListedWithTheirImages() throws {
        makeFolder("in")
        for index in 0..<3 { writeImage(palette[index], to: "in/\(index).png") }
        XCTAssertEqual(try collage(["--skip-unchanged", "in", "-o", "c.png", "--html", "index.html"]).status, 0)
        let again = try collage(["--skip-unchanged", "--json", "in", "-o", "c.png", "--html", "index.html"])
        XCTAssertEqual(events(assertValidEventStream(again, "unchanged"), "unchanged").count, 1)
        let page = String(decoding: contents("index.html") ?? [], as: UTF8.self)
        XCTAssertTrue(page.contains("<img src=\"c.png\""), page)
        for index in 0..<3 { XCTAssertTrue(page.contains("href=\"in/\(index).png\""), page) }
    }
}
