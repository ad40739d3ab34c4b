import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Layout (the default grid)" and the output formats.
final class LayoutTests: CLITestCase {
    /// 5 images: 2 rows, round(2.5) = 3 columns; on 1000x800 tiles are
    /// round(333.3) = 333 wide, so the last column of pixels (x = 999) is
    /// canvas left over by rounding: background, as is the empty sixth cell.
    func testFiveImagesRoundingAndBackground() throws {
        makeFolder("in")
        let colours = Array(palette.prefix(5))
        for (index, colour) in colours.enumerated() { writeImage(colour, to: "in/\(index).png") }
        let result = try collage(["in", "--size", "1000x800", "--background", "#204060", "-o", "out.png"])
        assertSuccess(result, stdout: "out.png\n")
        guard let picture = decoded("out.png") else { return }
        XCTAssertEqual([picture.width, picture.height], [1000, 800], "exactly WxH")
        let background = RGB(red: 0x20, green: 0x40, blue: 0x60)
        for index in 0..<5 {
            let x = (index % 3) * 333, y = (index / 3) * 400
            for (px, py) in [(x, y), (x + 332, y + 399), (x + 166, y + 200)] {
                XCTAssertLessThanOrEqual(picture.pixel(x: px, y: py).distance(to: colours[index]), 2,
                                         "image \(index) at (\(px),\(py))")
            }
        }
        XCTAssertEqual(picture.pixel(x: 999, y: 100), background, "canvas left over by rounding")
        XCTAssertEqual(picture.pixel(x: 999, y: 700), background)
        XCTAssertEqual(picture.pixel(x: 666, y: 400), background, "the empty cell")
        XCTAssertEqual(picture.pixel(x: 998, y: 400), background, "the empty cell, its corner")
    }

    /// 2 images: one row of two tiles, each 600x800.
    func testTwoImagesMakeOneRow() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        writeImage(palette[1], to: "in/b.png")
        assertSuccess(try collage(["in", "-o", "out.png"]), stdout: "out.png\n")
        guard let picture = decoded("out.png") else { return }
        for (x, y, colour) in [(0, 0, palette[0]), (599, 799, palette[0]), (600, 0, palette[1]), (1199, 799, palette[1])] {
            XCTAssertLessThanOrEqual(picture.pixel(x: x, y: y).distance(to: colour), 2, "(\(x),\(y))")
        }
    }

    /// Each image covers its tile and the overflow is cropped equally from
    /// both sides: a 200x100 image in thirds (red, green, blue) in a 600x800
    /// tile is scaled 8x to 1600x800 and its middle 600 columns kept, so the
    /// tile shows about 33 px of red, green, then about 33 px of blue.
    func testImageCoversItsTileCroppedFromTheCentre() throws {
        makeFolder("in")
        let thirds = PixelBuffer(width: 200, height: 100) { x, _ in
            x < 67 ? RGB(red: 255, green: 0, blue: 0) : x < 133 ? RGB(red: 0, green: 255, blue: 0) : RGB(red: 0, green: 0, blue: 255)
        }
        write(try Encoder.encode(thirds, suffix: ".png", orientation: nil).bytes, to: "in/a.png")
        writeImage(palette[6], to: "in/b.png")
        assertSuccess(try collage(["in", "-o", "out.png"]), stdout: "out.png\n")
        guard let picture = decoded("out.png") else { return }
        let red = RGB(red: 255, green: 0, blue: 0), green = RGB(red: 0, green: 255, blue: 0), blue = RGB(red: 0, green: 0, blue: 255)
        for y in [0, 400, 799] {
            XCTAssertLessThanOrEqual(picture.pixel(x: 10, y: y).distance(to: red), 8, "left edge at y \(y)")
            XCTAssertLessThanOrEqual(picture.pixel(x: 300, y: y).distance(to: green), 8, "centre at y \(y)")
            XCTAssertLessThanOrEqual(picture.pixel(x: 589, y: y).distance(to: blue), 8, "right edge at y \(y)")
            XCTAssertLessThanOrEqual(picture.pixel(x: 60, y: y).distance(to: green), 8, "green from about x 33")
            XCTAssertLessThanOrEqual(picture.pixel(x: 540, y: y).distance(to: green), 8, "green to about x 566")
        }
    }

    /// The other extensions collage knows (gif heic heif avif) depend on what
    /// libvips was built with: each is either written, or a usage error (64,
    /// one line) that does not offer that same extension as a choice.
    func testOptionalFormatsAreWrittenOrRefusedClearly() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        for ext in ["gif", "heic", "heif", "avif"] {
            let name = "out." + ext
            let result = try collage(["in", "--size", "300x200", "-o", name])
            if result.status == 0 {
                assertSuccess(result, stdout: name + "\n")
                XCTAssertGreaterThan(contents(name)?.count ?? 0, 0)
                continue
            }
            let message = assertFailure(result, status: 64, mentions: [name])
            let rest = message.replacingOccurrences(of: "'\(name)'", with: "")
            for listed in [", \(ext)", "\(ext), ", "or \(ext)"] {
                XCTAssertFalse(rest.contains(listed), "'\(message)' offers \(ext) while refusing it")
            }
            XCTAssertFalse(exists(name))
        }
    }

    /// The formats the contract names: jpg, jpeg, png, webp, tif, tiff (any case
    /// of the extension): each written, each a complete 300x200 image of
    /// that format.
    func testEveryNamedFormatIsWritten() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        let magic: [String: [UInt8]] = [
            "jpg": [0xFF, 0xD8, 0xFF], "jpeg": [0xFF, 0xD8, 0xFF], "png": [0x89, 0x50, 0x4E, 0x47],
            "webp": Array("RIFF".utf8), "tif": [0x49, 0x49, 0x2A, 0x00], "tiff": [0x49, 0x49, 0x2A, 0x00],
            "JPG": [0xFF, 0xD8, 0xFF], "Png": [0x89, 0x50, 0x4E, 0x47],
        ]
        for (ext, start) in magic.sorted(by: { $0.key < $1.key }) {
            let name = "out." + ext
            let result = try collage(["in", "--size", "300x200", "-o", name])
            assertSuccess(result, stdout: name + "\n")
            let bytes = contents(name) ?? []
            XCTAssertEqual(Array(bytes.prefix(start.count)), start, "\(name) is \(ext)")
            if let picture = decoded(name) {
                XCTAssertEqual([picture.width, picture.height], [300, 200], name)
                XCTAssertLessThanOrEqual(picture.pixel(x: 150, y: 100).distance(to: palette[0]), 10, name)
            }
        }
    }
}
