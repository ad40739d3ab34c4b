import Foundation
import Glibc
import Vips
import XCTest

/// Images that claim or hold far more pixels than a tile needs
/// (docs/what-happens-when.md): decompression bombs are rejected from their
/// header in little memory; extreme strips, with or without an EXIF
/// orientation, are used without holding them whole. What they cost is
/// shown by the peak memory of the run (VmHWM), never by a clock.
final class ImageBombTests: CLITestCase {
    /// A JPEG whose frame header says 64250x64250 (a 16x16 JPEG with its
    /// SOF patched: well under 1 KB), a real 20000x20000 PNG (1-bit, made by
    /// `vips black`, 48 KB) and a PNG whose IHDR alone claims 20000x20000:
    /// each `rejected`/`too-large` with the default --max-pixels, from the
    /// header: the run, with one good image beside them, stays under 120 MB
    /// of peak memory (VmHWM), about what a run of the good image alone
    /// costs. With only the bombs: 66, nothing written, a warning line per
    /// bomb and the exit's line last.
    func testDecompressionBombsAreRejectedFromTheHeaderCheaply() throws {
        let small = image(palette[0], width: 16, height: 16, suffix: ".jpg")
        let jpegBomb = Fixture.jpeg(small, claiming: 64250, 64250)
        XCTAssertLessThan(jpegBomb.count, 1024, "a bomb of under 1 KB")
        makeFolder("bombs")
        write(jpegBomb, to: "bombs/jpeg-64250.jpg")
        try vipsTool(["vips", "black", path("bombs/real-20000.png") + "[bitdepth=1,compression=9]", "20000", "20000"])
        write(Fixture.hugeHeaderPNG(width: 20000, height: 20000), to: "bombs/header-20000.png")
        let header = try ImageFile.header(bytes: contents("bombs/real-20000.png")!)
        XCTAssertEqual([header.width, header.height], [20000, 20000], "the PNG really is 20000x20000")
        makeFolder("good")
        writeImage(palette[1], to: "good/a.png")

        let baseline = try measuredCollage(["good", "--json", "-o", "baseline.png"])
        XCTAssertEqual(baseline.result.status, 0, baseline.result.summary)
        let run = try measuredCollage(["bombs", "good", "--json", "-o", "out.png"])
        XCTAssertEqual(run.result.status, 0, run.result.summary)
        let all = jsonEvents(run.result)
        for name in ["bombs/jpeg-64250.jpg", "bombs/real-20000.png", "bombs/header-20000.png"] {
            XCTAssertEqual(verdicts(all, name), ["rejected:too-large"], name)
        }
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["good/a.png"])
        XCTAssertLessThan(run.maxRSSMegabytes, 120, "no pixel of a bomb is held in memory")
        XCTAssertLessThan(run.maxRSSMegabytes, baseline.maxRSSMegabytes + 20, "about the cost of the good image alone")
        print("bombs: peak \(Int(run.maxRSSMegabytes)) MB (the good image alone: \(Int(baseline.maxRSSMegabytes)) MB)")

        let only = try measuredCollage(["bombs", "-o", "none.png"])
        XCTAssertEqual(only.result.status, 66, only.result.summary)
        XCTAssertEqual(only.result.stdout, [])
        XCTAssertEqual(only.result.stderrLines.count, 1, "the exit's line: the rejections are told with -v\n"
                       + only.result.summary)
        XCTAssertTrue(only.result.stderrLines.last?.contains("no eligible image found (3 rejected)") == true,
                      only.result.summary)
        XCTAssertLessThan(only.maxRSSMegabytes, 120)
        XCTAssertFalse(exists("none.png"))
    }

    /// --max-pixels is the limit, compared with width x height: a 64x48
    /// image (3072 pixels) is too large for 3071 and fine for 3072.
    func testMaxPixelsIsTheLimit() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        let over = try collage(["in", "--max-pixels", "3071", "--json", "-o", "out.png"])
        XCTAssertEqual(over.status, 66, over.summary)
        XCTAssertEqual(verdicts(jsonEvents(over), "in/a.png"), ["rejected:too-large"])
        let exact = try collage(["in", "--max-pixels", "3072", "--json", "-o", "out.png"])
        XCTAssertEqual(exact.status, 0, exact.summary)
        XCTAssertEqual(verdicts(jsonEvents(exact), "in/a.png"), ["accepted"])
    }

    /// A 17000x16 strip (red, green, blue thirds) is landscape: used with
    /// or without --allow-portrait, its centre (green) fills the tile, and
    /// the run stays under 120 MB. Its 16x17000 twin is used with
    /// --allow-portrait, as cheaply.
    func testExtremeAspectRatioIsUsedInBoundedMemory() throws {
        let thirds = [RGB(red: 255, green: 0, blue: 0), RGB(red: 0, green: 255, blue: 0), RGB(red: 0, green: 0, blue: 255)]
        let wide = PixelBuffer(width: 17000, height: 16) { x, _ in thirds[min(2, x * 3 / 17000)] }
        let tall = PixelBuffer(width: 16, height: 17000) { _, y in thirds[min(2, y * 3 / 17000)] }
        write(try Encoder.encode(wide, suffix: ".png").bytes, to: "wide.png")
        write(try Encoder.encode(tall, suffix: ".png").bytes, to: "tall.png")
        for (input, options) in [("wide.png", [String]()), ("wide.png", ["--allow-portrait"]),
                                 ("tall.png", ["--allow-portrait"])] {
            let run = try measuredCollage([input, "--json", "-o", "out.png"] + options)
            let what = "\(input) \(options.joined(separator: " "))"
            XCTAssertEqual(run.result.status, 0, "\(what)\n\(run.result.summary)")
            XCTAssertEqual(events(jsonEvents(run.result), "written").first?["images"] as? [String], [input], what)
            XCTAssertLessThan(run.maxRSSMegabytes, 120, what)
            print("\(what): peak \(Int(run.maxRSSMegabytes)) MB")
            guard let picture = decoded("out.png") else { continue }
            XCTAssertEqual([picture.width, picture.height], [1200, 800])
            for (x, y) in [(600, 400), (5, 5), (1194, 794)] {
                XCTAssertLessThanOrEqual(picture.pixel(x: x, y: y).distance(to: thirds[1]), 10,
                                         "\(what): the centre of the strip fills the tile at (\(x),\(y))")
            }
        }
        let withoutFlag = try collage(["tall.png", "-o", "out.png"])
        XCTAssertEqual(withoutFlag.status, 66, "the tall strip is a portrait\n\(withoutFlag.summary)")
    }

    /// Extreme strips with an EXIF orientation take the same cropped path.
    /// A 17000x16 JPEG, orientation 6, whose top half is red and bottom half
    /// blue: shown turned a quarter clockwise (with --allow-portrait), the
    /// tile's right half is red and its left half blue. A 30000x3000 JPEG,
    /// orientation 6 (found by the fuzz test as a 65195x1024 one that cost
    /// 250 MB): used in under 200 MB, where turning the whole image
    /// upright first held every pixel of it (about 330 MB).
    func testExtremeStripsWithEXIFOrientation() throws {
        let red = RGB(red: 255, green: 0, blue: 0), blue = RGB(red: 0, green: 0, blue: 255)
        let halves = PixelBuffer(width: 17000, height: 16) { _, y in y < 8 ? red : blue }
        write(try Encoder.encode(halves, suffix: ".jpg[Q=95]", orientation: 6).bytes, to: "halves.jpg")
        let run = try measuredCollage(["halves.jpg", "--allow-portrait", "--json", "-o", "halves.png"])
        XCTAssertEqual(run.result.status, 0, run.result.summary)
        XCTAssertEqual(events(jsonEvents(run.result), "accepted").first?["width"] as? Int, 16, "displayed 16 wide")
        if let picture = decoded("halves.png") {
            for (x, y, colour) in [(150, 400, blue), (450, 100, blue), (750, 700, red), (1050, 400, red)] {
                XCTAssertLessThanOrEqual(picture.pixel(x: x, y: y).distance(to: colour), 40,
                                         "(\(x),\(y)) is \(picture.pixel(x: x, y: y)), expected \(colour)")
            }
        }

        try vipsTool(["vips", "black", path("black.jpg"), "30000", "3000", "--bands", "3"])
        let tiff: [UInt8] = b("II") + [0x2A, 0, 8, 0, 0, 0, 1, 0] + [0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0] + [0, 0, 0, 0]
        write(Fixture.jpeg(contents("black.jpg")!, insertingAPP1: b("Exif") + [0, 0] + tiff), to: "turned.jpg")
        let big = try measuredCollage(["turned.jpg", "--allow-portrait", "--json", "-o", "turned.png"])
        XCTAssertEqual(big.result.status, 0, big.result.summary)
        XCTAssertEqual(events(jsonEvents(big.result), "accepted").first?["orientation"] as? Int, 6)
        XCTAssertLessThan(big.maxRSSMegabytes, 200, "the strip is not held whole in memory to be turned")
        print("30000x3000, orientation 6: peak \(Int(big.maxRSSMegabytes)) MB")
        if let picture = decoded("turned.png") { XCTAssertEqual(picture.pixel(x: 600, y: 400), .black) }
    }
}
