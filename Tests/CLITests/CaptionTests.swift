import Foundation
import Glibc
import Vips
import XCTest

/// Captions and titles, drawn by libvips' text renderer: ink in the band
/// under each image and nowhere else, long captions cut inside their cell,
/// the title above the cells, the fields filled in, fonts checked.
final class CaptionTests: CLITestCase {
    private let light = RGB(red: 200, green: 220, blue: 255)

    /// Flat light images named `name(i)`, so that ink (black on white) shows.
    private func writeLight(_ count: Int, name: (Int) -> String = { "img\($0).png" }) {
        makeFolder("in")
        for index in 0..<count { writeImage(light, to: "in/\(name(index))", width: 320, height: 240) }
    }

    private func placed(_ result: ProcessResult) -> [[String: Any]] { events(jsonEvents(result), "placed") }

    private func rect(_ event: [String: Any]) -> (x: Int, y: Int, w: Int, h: Int) {
        (event["x"] as? Int ?? -1, event["y"] as? Int ?? -1, event["width"] as? Int ?? -1, event["height"] as? Int ?? -1)
    }

    /// Pixels in a rectangle darker than `limit` on every channel: ink.
    private func ink(_ picture: PixelBuffer, x: Int, y: Int, w: Int, h: Int, limit: UInt8 = 100) -> Int {
        var count = 0
        for row in max(0, y)..<min(picture.height, y + h) {
            for column in max(0, x)..<min(picture.width, x + w) {
                let pixel = picture.pixel(x: column, y: row)
                if pixel.red < limit && pixel.green < limit && pixel.blue < limit { count += 1 }
            }
        }
        return count
    }

    func testEachCaptionIsInkInTheBandUnderItsImage() throws {
        writeLight(6)
        for (width, height) in [(1200, 800), (600, 400)] {
            let result = try collage(["--label", "{name}", "--size", "\(width)x\(height)", "--json", "in", "-o", "l.png"])
            XCTAssertEqual(result.status, 0, result.summary)
            guard let picture = decoded("l.png") else { return }
            let cellW = width / 3, cellH = height / 2
            for (index, event) in placed(result).enumerated() {
                let image = rect(event)
                XCTAssertEqual(event["label"] as? String, "img\(index).png")
                let cellX = (index % 3) * cellW, cellY = (index / 3) * cellH
                XCTAssertEqual(image.x, cellX)
                XCTAssertLessThan(image.h, cellH, "the image leaves room for its caption")
                let band = (x: cellX, y: image.y + image.h, w: cellW, h: cellY + cellH - image.y - image.h)
                XCTAssertGreaterThan(ink(picture, x: band.x, y: band.y, w: band.w, h: band.h), 20,
                                     "\(width)x\(height): ink in image \(index)'s band")
                XCTAssertEqual(ink(picture, x: image.x, y: image.y, w: image.w, h: image.h), 0,
                               "no ink on image \(index)")
            }
        }
        // Without --label: no band, no ink, and no label in the events.
        let plain = try collage(["--json", "in", "-o", "p.png"])
        guard let picture = decoded("p.png") else { return }
        XCTAssertEqual(ink(picture, x: 0, y: 0, w: picture.width, h: picture.height), 0)
        XCTAssertTrue(placed(plain).allSatisfy { $0["label"] == nil && rect($0).h == 400 })
    }

    func testALongCaptionIsCutAndStaysInItsCell() throws {
        let long = String(repeating: "a-very-long-file-name-", count: 8)
        writeLight(6) { "\($0)-\(long).png" }
        let result = try collage(["--label", "{name}", "--gap", "10", "--size", "900x500", "--json", "in", "-o", "c.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        guard let picture = decoded("c.png") else { return }
        let frames = placed(result).map(rect)
        XCTAssertEqual(frames.count, 6)
        // Every gap column and row, the whole height and width: background, no ink.
        for frame in frames {
            let gapLeft = frame.x - 10, gapRight = frame.x + frame.w
            XCTAssertEqual(ink(picture, x: gapLeft, y: 0, w: 10, h: picture.height), 0, "ink in the gap left of \(frame)")
            XCTAssertEqual(ink(picture, x: gapRight, y: 0, w: 10, h: picture.height), 0, "ink in the gap right of \(frame)")
        }
        XCTAssertEqual(ink(picture, x: 0, y: picture.height - 10, w: picture.width, h: 10), 0, "ink in the bottom margin")
        // The cut text ends with an ellipsis: the renderer says what it drew.
        let cut = try TextRenderer.line("\(0)-\(long).png", font: "DejaVu Sans", pixelSize: 14, maxWidth: 283)
        XCTAssertEqual(cut?.text.last, "…")
        XCTAssertLessThanOrEqual(cut?.width ?? .max, 283)
    }

    func testTheTitleIsAboveTheCells() throws {
        writeLight(4)
        let result = try collage(["--title", "Sheet {sheet}: {count} from {first} to {last}", "--json", "in", "-o", "t.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        guard let picture = decoded("t.png") else { return }
        let top = placed(result).map { rect($0).y }.min() ?? 0
        XCTAssertGreaterThan(top, 10, "the cells moved down")
        XCTAssertGreaterThan(ink(picture, x: 0, y: 0, w: picture.width, h: top), 50, "the title's ink")
        XCTAssertEqual(picture.height, 800)
    }

    func testFieldsAreFilledIn() throws {
        makeFolder("in")
        makeFolder("in/album")
        let pixels = PixelBuffer(width: 300, height: 200, fill: light)
        write(try Encoder.encode(pixels, suffix: ".jpg", exif: ["exif-ifd2-DateTimeOriginal": "2019:05:03 14:22:01"]).bytes,
              to: "in/album/dated.jpg")
        writeImage(light, to: "in/album/plain.photo.png", width: 300, height: 200)
        let template = "{index}|{name}|{stem}|{ext}|{dir}|{width}x{height}|{format}|{date}|{{x}}"
        let result = try collage(["--label", template, "--json", "in", "-o", "f.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(placed(result).compactMap { $0["label"] as? String },
                       ["1|dated.jpg|dated|jpg|album|300x200|jpeg|2019-05-03|{x}",
                        "2|plain.photo.png|plain.photo|png|album|300x200|png||{x}"])
        let plan = try collage(["--label", "{name} {date}", "--dry-run", "--json", "in", "-o", "f.png"])
        XCTAssertEqual(events(jsonEvents(plan), "planned").first?["labels"] as? [String],
                       ["dated.jpg 2019-05-03", "plain.photo.png "], "the dry run plans the captions")
    }

    func testANameThatIsNotUTF8ShowsTheReplacementCharacter() throws {
        makeFolder("in")
        writeImage(light, to: b("in/caf") + [0xE9] + b(".png"), width: 320, height: 240)
        let result = try collage(["--label", "{name}", "--json", "in", "-o", "u.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(placed(result).first?["label"] as? String, "caf\u{FFFD}.png")
        guard let picture = decoded("u.png") else { return }
        XCTAssertGreaterThan(ink(picture, x: 0, y: 700, w: 1200, h: 100), 20, "drawn")
    }

    func testIndexCountsAcrossSheets() throws {
        writeLight(5)
        let result = try collage(["--sheets", "--max", "2", "--label", "{index}", "--json", "in", "-o", "s.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(placed(result).compactMap { $0["label"] as? String }, ["1", "2", "3", "4", "5"])
    }

    func testFonts() throws {
        writeLight(2)
        let good = try collage(["--label", "{name}", "--font", "DejaVu Sans Bold 11", "in", "-o", "ok.png"])
        XCTAssertEqual(good.status, 0, good.summary)
        let generic = try collage(["--label", "{name}", "--font", "Sans", "in", "-o", "ok2.png"])
        XCTAssertEqual(generic.status, 0, generic.summary)
        let missing = try collage(["--label", "{name}", "--font", "Nonexistent Font Xyz 12", "in", "-o", "no.png"])
        // (What fontconfig falls back to depends on the fonts installed: Noto Sans beside DejaVu.)
        assertFailure(missing, status: 64, mentions: ["Nonexistent Font Xyz", "is not installed (fontconfig would use '"])
        XCTAssertFalse(exists("no.png"))
    }

    func testInkContrastsWithTheBackground() throws {
        makeFolder("in")
        for index in 0..<2 { writeImage(RGB(red: 20, green: 20, blue: 20), to: "in/\(index).png", width: 320, height: 240) }
        let result = try collage(["--label", "{name}", "--background", "black", "--json", "in", "-o", "d.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        guard let picture = decoded("d.png") else { return }
        let image = rect(placed(result)[0])
        var light = 0
        for y in (image.y + image.h)..<picture.height {
            for x in 0..<(picture.width / 2) where picture.pixel(x: x, y: y).red > 200 { light += 1 }
        }
        XCTAssertGreaterThan(light, 20, "white ink on black")
    }
}
