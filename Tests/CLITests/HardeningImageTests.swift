import Foundation
import Glibc
import Vips
import XCTest

/// images that are broken or merely odd (docs/what-happens-when.md):
/// truncated and corrupt files fail and are replaced by the next good
/// image; CMYK, grey, 16-bit with alpha, palette and animated images all
/// make one collage. (Bombs and extreme strips: ImageBombTests.)
final class HardeningImageTests: CLITestCase {

    /// A 200x150 PNG of coarse noise (so that it does not compress to a few
    /// bytes, and half of it is half of the pixels).
    private func noisyPNG() throws -> [UInt8] {
        try Encoder.encode(Fixture.noise(width: 200, height: 150, seed: 4), suffix: ".png").bytes
    }

    // MARK: - Broken images

    /// Six good images with five broken ones between them: a truncated
    /// JPEG (a sample cut in half), a truncated PNG, a PNG whose IDAT CRC
    /// is wrong, a JPEG whose frame header (SOF) has an impossible
    /// precision, and one whose SOF has zero sampling factors. Each broken
    /// file is `failed` once with a reason and one stderr line naming it;
    /// the next good image takes its place, so the collage is of the six
    /// good ones, in order; exit 65. Without --json: the same status, the
    /// path on stdout, one stderr line per broken file and the exit's line.
    func testBrokenImagesFailAndTheNextGoodImageTakesTheirPlace() throws {
        let dune = contents(b(Package.samples + "/dune.jpg"))!
        let png = try noisyPNG()
        let sof = try XCTUnwrap(Fixture.sofOffset(dune), "the sample has a SOF")
        var badPrecision = dune
        badPrecision[sof + 4] = 7
        var badSampling = dune
        badSampling[sof + 11] = 0  // first component: 0x0 sampling factors
        var badCRC = png
        let idat = try XCTUnwrap(Fixture.pngChunks(png).first { $0.type == "IDAT" })
        badCRC[idat.offset + 8 + idat.length] ^= 0xFF
        let broken: [(name: String, bytes: [UInt8], format: String)] = [
            ("02-truncated.jpg", Array(dune.prefix(dune.count / 2)), "jpeg"),
            ("04-truncated.png", Array(png.prefix(png.count / 2)), "png"),
            ("06-bad-crc.png", badCRC, "png"),
            ("08-bad-sof-precision.jpg", badPrecision, "jpeg"),
            ("10-bad-sof-sampling.jpg", badSampling, "jpeg"),
        ]
        makeFolder("in")
        let good = ["01", "03", "05", "07", "09", "11"].enumerated().map { index, prefix -> String in
            let name = "\(prefix)-good" + (index % 2 == 0 ? ".jpg" : ".png")
            writeImage(palette[index], to: "in/" + name, suffix: index % 2 == 0 ? ".jpg" : ".png")
            return name
        }
        writeImage(palette[6], to: "in/12-spare.png")  // never needed
        for file in broken { write(file.bytes, to: "in/" + file.name) }

        settle()
        let json = try collage(["in", "--json", "-o", "out.jpg"], timeout: 60)
        XCTAssertEqual(json.status, 65, json.summary)
        let all = jsonEvents(json)
        var reasons: [String] = []
        for file in broken {
            let path = "in/" + file.name
            XCTAssertEqual(all.filter { field($0, "event") == "failed" && field($0, "path") == path }.count, 1,
                           "\(path) fails once\n\(json.summary)")
            let error = all.first { field($0, "event") == "failed" && field($0, "path") == path }.flatMap { field($0, "error") } ?? ""
            XCTAssertTrue(error.contains(file.format), "\(path): '\(error)' says what could not be read")
            reasons.append("\(file.name): \(error)")
            let lines = json.stderrLines.filter { $0.contains(path) }
            XCTAssertEqual(lines.count, 1, "one stderr line names \(path)\n\(json.summary)")
            XCTAssertTrue(lines.first?.contains(error) == true, "the stderr line gives the reason: \(lines)")
        }
        print("broken images, reasons given:\n  " + reasons.joined(separator: "\n  "))
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], good.map { "in/" + $0 })
        XCTAssertEqual(all.last?["used"] as? Int, 6)
        XCTAssertEqual(all.last?["failed"] as? Int, broken.count)
        if let picture = decoded("out.jpg") { assertTiles(picture, Array(palette[0..<6])) }

        settle()
        let plain = try collage(["in", "-o", "plain.jpg"], timeout: 60)
        XCTAssertEqual(plain.status, 65, plain.summary)
        XCTAssertEqual(plain.stdoutText, "plain.jpg\n")
        // One line per broken file and the exit's line; the notice that the
        // cap left 12-spare.png out is told only with -v, or on a terminal.
        XCTAssertEqual(plain.stderrLines.count, broken.count + 1, plain.summary)
        XCTAssertFalse(plain.stderrLines.contains { $0.contains("--max 6 reached") }, plain.summary)
        XCTAssertFalse(plain.stderrLines.last?.contains("in/") ?? true, "the last line is the exit's")
    }

    /// A JPEG with garbage in an APP1 "Exif" segment, and one with a TIFF
    /// header whose IFD claims 65535 entries: libvips tolerates both (what
    /// this test observed and now pins down), so each is a correct tile of
    /// its colour, upright, and nothing fails.
    func testCorruptEXIFIsToleratedAndTheTileIsCorrect() throws {
        let base = image(palette[0], width: 64, height: 48, suffix: ".jpg")
        let garbage = b("Exif") + [0, 0] + (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        var ifd = b("Exif") + [0, 0] + b("II") + [0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] + [0xFF, 0xFF]
        for _ in 0..<12 { ifd += [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x63, 0x00, 0x00, 0x00] }  // orientation 99
        makeFolder("in")
        write(Fixture.jpeg(base, insertingAPP1: garbage), to: "in/1-garbage-exif.jpg")
        write(Fixture.jpeg(image(palette[1], width: 64, height: 48, suffix: ".jpg"), insertingAPP1: ifd),
              to: "in/2-bad-ifd.jpg")
        let result = try collage(["in", "--json", "-o", "out.png"], timeout: 30)
        XCTAssertEqual(result.status, 0, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(events(all, "failed").count, 0, result.summary)
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/1-garbage-exif.jpg", "in/2-bad-ifd.jpg"])
        for accepted in events(all, "accepted") {
            XCTAssertEqual(accepted["width"] as? Int, 64, "upright: the bad orientation is ignored")
            XCTAssertEqual(accepted["height"] as? Int, 48)
        }
        if let picture = decoded("out.png") { assertTiles(picture, [palette[0], palette[1]]) }
    }

    // MARK: - Odd but valid images

    /// One collage of six odd images: a CMYK JPEG, a greyscale JPEG, a
    /// 16-bit PNG with a half-transparent alpha channel, a palette PNG, an
    /// animated GIF (cyan then magenta) and a plain JPEG. All six are used,
    /// the collage decodes, each tile's colour is what its image shows in
    /// sRGB: the CMYK red close to red, the grey as grey, the alpha blue
    /// flattened on the white background, the GIF's first frame.
    func testOddButValidImagesMakeOneCollage() throws {
        makeFolder("src")
        makeFolder("in")
        let red = RGB(red: 255, green: 0, blue: 0), grey = RGB(red: 90, green: 90, blue: 90)
        let blue = RGB(red: 0, green: 0, blue: 255), yellow = RGB(red: 255, green: 255, blue: 0)
        let cyan = RGB(red: 0, green: 255, blue: 255), magenta = RGB(red: 255, green: 0, blue: 255)
        let green = RGB(red: 0, green: 128, blue: 0)
        writeImage(red, to: "src/red.png")
        writeImage(grey, to: "src/grey.png")
        writeImage(blue, to: "src/blue.png")
        writeImage(yellow, to: "src/yellow.png")
        try vipsTool(["vips", "colourspace", path("src/red.png"), path("in/1-cmyk.jpg"), "cmyk"])
        try vipsTool(["vips", "colourspace", path("src/grey.png"), path("in/2-grey.jpg"), "b-w"])
        try vipsTool(["vips", "bandjoin_const", path("src/blue.png"), path("src/blue-alpha.v"), "128"])
        try vipsTool(["vips", "colourspace", path("src/blue-alpha.v"), path("in/3-deep-alpha.png"), "rgb16"])
        try vipsTool(["vips", "pngsave", path("src/yellow.png"), path("in/4-palette.png"), "--palette"])
        write(Fixture.animatedGIF(width: 64, height: 48, frames: [cyan, magenta]), to: "in/5-animated.gif")
        writeImage(green, to: "in/6-plain.jpg", suffix: ".jpg")

        // The fixtures are what they say.
        let described = try vipsTool(["vipsheader", "-a", path("in/1-cmyk.jpg"), path("in/2-grey.jpg"),
                                      path("in/3-deep-alpha.png")]).stdoutText
        XCTAssertTrue(described.contains("4 bands, cmyk"), described)
        XCTAssertTrue(described.contains("1 band, b-w"), described)
        XCTAssertTrue(described.contains("ushort, 4 bands"), described)
        let palettePNG = contents("in/4-palette.png")!
        XCTAssertEqual(palettePNG[25], 3, "colour type 3: a palette PNG")
        let pages = try vipsTool(["vipsheader", "-f", "n-pages", path("in/5-animated.gif")]).stdoutText
        XCTAssertEqual(pages.trimmingCharacters(in: .whitespacesAndNewlines), "2", "two frames")

        let result = try collage(["in", "--json", "-o", "out.png"], timeout: 30)
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stderr, [], result.summary)
        let all = jsonEvents(result)
        let names = ["1-cmyk.jpg", "2-grey.jpg", "3-deep-alpha.png", "4-palette.png", "5-animated.gif", "6-plain.jpg"]
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], names.map { "in/" + $0 })
        XCTAssertEqual(events(all, "accepted").compactMap { field($0, "format") },
                       ["jpeg", "jpeg", "png", "png", "gif", "jpeg"])
        guard let picture = decoded("out.png") else { return }
        XCTAssertEqual([picture.width, picture.height], [1200, 800])
        let expected: [(RGB, Int)] = [(red, 60), (grey, 8), (RGB(red: 127, green: 127, blue: 255), 8),
                                      (yellow, 4), (cyan, 4), (green, 12)]
        for (index, tile) in grid(6).enumerated() {
            let seen = picture.pixel(x: tile.x + tile.w / 2, y: tile.y + tile.h / 2)
            XCTAssertLessThanOrEqual(seen.distance(to: expected[index].0), expected[index].1,
                                     "\(names[index]): the tile is \(seen), expected about \(expected[index].0)")
            print("\(names[index]): tile centre \(seen)")
        }
    }
}
