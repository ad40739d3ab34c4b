import Foundation
import CollageTestSupport
import XCTest
@testable import Vips

/// Every input kind the loaders accept comes out as a 3-band 8-bit tile of
/// exactly the size asked for; content that is not one of our formats is
/// refused as `.unsupported` whatever its name; a truncated file is an error.
final class ImageFileDecodeTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let colour = RGB(red: 200, green: 30, blue: 60)

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// A 60x40 PNG of `colour`, the starting point of the conversions below.
    private func flatPNG() throws -> String {
        let path = folder.file("flat.png")
        try writeImage(PixelBuffer(width: 60, height: 40, fill: colour), suffix: ".png", to: path)
        return path
    }

    /// What `vipsheader` says of a file: "60x40 ushort, 4 bands, rgb16, pngload".
    private func vipsHeader(_ path: String) throws -> String {
        try runTool("vipsheader", [path]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Inputs that must decode

    func testGreyPNGBecomesThreeEqualBands() throws {
        let grey = folder.file("grey.png")
        try runTool("vips", ["colourspace", try flatPNG(), grey, "b-w"])
        XCTAssertTrue(try vipsHeader(grey).hasSuffix("60x40 uchar, 1 band, b-w, pngload"), "the input really is grey")
        let expected = try XCTUnwrap(UInt8(runTool("vips", ["getpoint", grey, "5", "5"])
            .trimmingCharacters(in: .whitespacesAndNewlines)))

        let pixels = try tile(of: grey, width: 30, height: 20)
        XCTAssertTile(pixels, width: 30, height: 20)
        XCTAssertColour(pixels.pixel(x: 15, y: 10), RGB(red: expected, green: expected, blue: expected), tolerance: 1)
        XCTAssertColour(pixels.pixel(x: 0, y: 0), RGB(red: expected, green: expected, blue: expected), tolerance: 1)
    }

    func testSixteenBitPNGWithAlphaIsFlattenedOntoTheBackground() throws {
        let rgba = folder.file("rgba.png"), rgba16 = folder.file("rgba16.v"), png16 = folder.file("rgba16.png")
        try runTool("vips", ["bandjoin_const", try flatPNG(), rgba, "128"])  // alpha 128/255
        try runTool("vips", ["colourspace", rgba, rgba16, "rgb16"])
        try runTool("vips", ["pngsave", rgba16, png16])
        XCTAssertTrue(try vipsHeader(png16).hasSuffix("60x40 ushort, 4 bands, rgb16, pngload"),
                      "the input really is 16-bit with alpha")

        let background = RGB(red: 0, green: 0, blue: 255)
        let pixels = try tile(of: png16, width: 30, height: 20, background: background)
        XCTAssertTile(pixels, width: 30, height: 20)
        let alpha = 128.0 / 255.0
        func mix(_ front: UInt8, _ back: UInt8) -> UInt8 {
            UInt8((Double(front) * alpha + Double(back) * (1 - alpha)).rounded())
        }
        let expected = RGB(red: mix(colour.red, background.red), green: mix(colour.green, background.green),
                           blue: mix(colour.blue, background.blue))
        XCTAssertColour(pixels.pixel(x: 15, y: 10), expected, tolerance: 2, "half-transparent over blue")
        XCTAssertColour(pixels.pixel(x: 29, y: 19), expected, tolerance: 2, "corner")

        // The same file on white gives a different, lighter colour: the background is really used.
        let onWhite = try tile(of: png16, width: 30, height: 20, background: .white)
        XCTAssertColour(onWhite.pixel(x: 15, y: 10),
                        RGB(red: mix(colour.red, 255), green: mix(colour.green, 255), blue: mix(colour.blue, 255)),
                        tolerance: 2, "half-transparent over white")
    }

    func testPalettePNG() throws {
        let palette = folder.file("palette.png")
        try runTool("vips", ["pngsave", try flatPNG(), palette, "--palette"])
        let bytes = try readBytes(palette)
        XCTAssertEqual(bytes[25], 3, "IHDR colour type 3: the input really is a palette PNG")

        let pixels = try tile(of: palette, width: 30, height: 20)
        XCTAssertTile(pixels, width: 30, height: 20)
        XCTAssertColour(pixels.pixel(x: 15, y: 10), colour, tolerance: 2)
    }

    func testCMYKJPEGBecomesSRGB() throws {
        // A colour well inside the CMYK gamut, so the round trip can be close.
        let muted = RGB(red: 150, green: 110, blue: 90)
        let source = folder.file("muted.png"), cmyk = folder.file("cmyk.jpg")
        try writeImage(PixelBuffer(width: 60, height: 40, fill: muted), suffix: ".png", to: source)
        try runTool("vips", ["colourspace", source, cmyk, "cmyk"])
        XCTAssertTrue(try vipsHeader(cmyk).hasSuffix("60x40 uchar, 4 bands, cmyk, jpegload"), "the input really is CMYK")

        let pixels = try tile(of: cmyk, width: 30, height: 20)
        XCTAssertTile(pixels, width: 30, height: 20)
        // Through a CMYK profile and JPEG and back: close, not exact.
        XCTAssertColour(pixels.pixel(x: 15, y: 10), muted, tolerance: 8)
    }

    func testAnimatedGIFGivesItsFirstFrame() throws {
        let gif = folder.file("anim.gif")
        let red = RGB(red: 255, green: 0, blue: 0), blue = RGB(red: 0, green: 0, blue: 255)
        try writeBytes(animatedGIF(width: 60, height: 40, frames: [red, blue]), to: gif)
        XCTAssertEqual(try runTool("vipsheader", ["-f", "n-pages", gif]).trimmingCharacters(in: .whitespacesAndNewlines),
                       "2", "the input really has two frames")

        let pixels = try tile(of: gif, width: 30, height: 20)
        XCTAssertTile(pixels, width: 30, height: 20)
        XCTAssertColour(pixels.pixel(x: 15, y: 10), red, "first frame, not the second (blue) nor a strip of both")
        XCTAssertColour(pixels.pixel(x: 29, y: 19), red)
        // The header is one frame's size, not the height of all frames.
        let probed = try header(of: gif)
        XCTAssertEqual(probed.width, 60)
        XCTAssertEqual(probed.height, 40)
        XCTAssertEqual(probed.format, "gif")
    }

    func testCoverThenCentreCrop() throws {
        // Left third red, middle green, right third blue; a square tile keeps the middle.
        let red = RGB(red: 255, green: 0, blue: 0), green = RGB(red: 0, green: 255, blue: 0)
        let blue = RGB(red: 0, green: 0, blue: 255)
        let path = folder.file("thirds.png")
        try writeImage(PixelBuffer(width: 90, height: 30) { x, _ in x < 30 ? red : (x < 60 ? green : blue) },
                       suffix: ".png", to: path)
        let pixels = try tile(of: path, width: 20, height: 20)
        XCTAssertTile(pixels, width: 20, height: 20)
        // The crop is source columns 30..<60; its outermost pixels blend with the
        // neighbours through the resampling kernel, so look a few pixels in.
        XCTAssertColour(pixels.pixel(x: 3, y: 10), green, tolerance: 8, "left part of the crop")
        XCTAssertColour(pixels.pixel(x: 16, y: 10), green, tolerance: 8, "right part of the crop")
        // Upscaling to cover: a tile larger than the image, other aspect.
        let large = try tile(of: path, width: 100, height: 200)
        XCTAssertTile(large, width: 100, height: 200)
        XCTAssertColour(large.pixel(x: 50, y: 100), green, tolerance: 8)
    }

    func testCentreCropResizesOnlyTheRegionTheTileShows() throws {
        // A 192x108 PNG (a screenshot's shape) into a 60x53 tile (a 4x3
        // sheet cell's): the tile shows source columns 35..<157. They are
        // white, the sides red. Resized whole and then cropped, the kernel
        // would pull red into the tile's outer columns; cut first, every
        // pixel is white, and a crop one column off would show red too.
        let red = RGB(red: 255, green: 0, blue: 0)
        let path = folder.file("screen.png")
        try writeImage(PixelBuffer(width: 192, height: 108) { x, _ in (35..<157).contains(x) ? .white : red },
                       suffix: ".png", to: path)
        let pixels = try tile(of: path, width: 60, height: 53)
        XCTAssertTile(pixels, width: 60, height: 53)
        let worst = (0..<53).flatMap { y in (0..<60).map { x in (x, y) } }
            .max { pixels.pixel(x: $0.0, y: $0.1).distance(to: .white) < pixels.pixel(x: $1.0, y: $1.1).distance(to: .white) }!
        XCTAssertColour(pixels.pixel(x: worst.0, y: worst.1), .white, tolerance: 1, "at \(worst.0),\(worst.1), the least white")
        // An attention crop is libvips' own, chosen over the whole resized
        // image (which part it keeps is libvips' choice): still the tile asked for.
        let attention = try withDescriptor(path) {
            try ImageFile.tile(descriptor: $0, width: 60, height: 53, crop: .attention, background: .white)
        }
        XCTAssertTile(attention, width: 60, height: 53)
    }

    func testHeaderOfEachFormat() throws {
        for (suffix, format) in [(".jpg", "jpeg"), (".png", "png"), (".webp", "webp"), (".tif", "tiff")] {
            let path = folder.file("h" + suffix)
            try writeImage(PixelBuffer(width: 60, height: 40, fill: colour), suffix: suffix, to: path)
            let probed = try header(of: path)
            XCTAssertEqual(probed, ImageHeader(width: 60, height: 40, orientation: 1, format: format), suffix)
            let pixels = try tile(of: path, width: 15, height: 10)
            XCTAssertTile(pixels, width: 15, height: 10, suffix)
            XCTAssertColour(pixels.pixel(x: 7, y: 5), colour, tolerance: 8, suffix)
        }
    }

    // MARK: - Content that must be refused

    private func assertUnsupported(_ path: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try header(of: path), "header of \(what)", file: file, line: line) { error in
            XCTAssertEqual((error as? VipsError)?.code, .unsupported, "header of \(what): \(error)", file: file, line: line)
        }
        XCTAssertThrowsError(try tile(of: path, width: 30, height: 20), "tile of \(what)", file: file, line: line) { error in
            XCTAssertEqual((error as? VipsError)?.code, .unsupported, "tile of \(what): \(error)", file: file, line: line)
        }
    }

    func testSVGNamedJPGIsUnsupported() throws {
        let path = folder.file("drawing.jpg")
        try writeBytes(Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="60" height="40">
              <rect width="60" height="40" fill="red"/>
            </svg>

            """.utf8), to: path)
        // libvips itself (the command, nothing blocked) would load it: the refusal is ours.
        if let size = try? runTool("vipsheader", [path]) {
            XCTAssertTrue(size.contains("60x40"), size)
        }
        assertUnsupported(path, "SVG")
    }

    func testPDFNamedJPGIsUnsupported() throws {
        let path = folder.file("document.jpg")
        try writeBytes(minimalPDF(), to: path)
        if let size = try? runTool("vipsheader", [path]) {
            XCTAssertTrue(size.contains("60x40"), size)  // a real PDF, which libvips itself would load
        }
        assertUnsupported(path, "PDF")
    }

    func testTextNamedJPGIsUnsupported() throws {
        let path = folder.file("notes.jpg")
        try writeBytes(Array("just some text, not a picture\n".utf8), to: path)
        assertUnsupported(path, "text")
    }

    func testPPMNamedJPGIsUnsupported() throws {
        // A format libvips reads natively, but not one we allow.
        let ppm = folder.file("image.ppm"), path = folder.file("image.jpg")
        try runTool("vips", ["copy", try flatPNG(), ppm])
        try FileManager.default.moveItem(atPath: ppm, toPath: path)
        assertUnsupported(path, "PPM")
    }

    func testEmptyFileIsUnsupported() throws {
        let path = folder.file("empty.jpg")
        try writeBytes([], to: path)
        assertUnsupported(path, "an empty file")
    }

    func testHeaderOfAHugeImageReadsNoPixels() throws {
        // 100000 x 100000 RGB would be 30 GB of pixels; the header must come back at once.
        let path = folder.file("huge.png")
        try writeBytes(hugeHeaderPNG(width: 100_000, height: 100_000), to: path)
        // Decoding would need 30 GB: coming back at all proves only the header was read.
        let probed = try header(of: path)
        XCTAssertEqual(probed, ImageHeader(width: 100_000, height: 100_000, orientation: 1, format: "png"))
        XCTAssertEqual(probed.pixelCount, 10_000_000_000)
        XCTAssertEqual(ImageHeader(width: Int.max, height: 3, orientation: 1, format: "png").pixelCount, .max,
                       "overflow saturates")
    }

    // MARK: - Broken data

    func testTruncatedJPEGFailsInsteadOfGivingATile() throws {
        let whole = try readBytes(samplesDirectory + "/aqua.jpg")
        let path = folder.file("truncated.jpg")
        try writeBytes(Array(whole[..<(whole.count / 2)]), to: path)

        // The header is intact, so the probe accepts it ...
        let probed = try header(of: path)
        XCTAssertEqual(probed.format, "jpeg")
        // ... but decoding must fail, not hand back a tile with a grey band.
        XCTAssertThrowsError(try tile(of: path, width: 60, height: 40)) { error in
            guard let error = error as? VipsError else { return XCTFail("not a VipsError: \(error)") }
            XCTAssertEqual(error.code, .load, "\(error)")
        }
        // The whole file decodes (the failure is the truncation, not the photo).
        let complete = folder.file("complete.jpg")
        try writeBytes(whole, to: complete)
        XCTAssertTile(try tile(of: complete, width: 60, height: 40), width: 60, height: 40)
    }

    func testDecodeBytesRoundTrip() throws {
        let encoded = try Encoder.encode(PixelBuffer(width: 7, height: 5) { x, y in
            RGB(red: UInt8(x * 30), green: UInt8(y * 50), blue: 7)
        }, suffix: ".png")
        let decoded = try ImageFile.decode(bytes: encoded.bytes)
        XCTAssertTile(decoded, width: 7, height: 5)
        for y in 0..<5 {
            for x in 0..<7 {
                XCTAssertEqual(decoded.pixel(x: x, y: y), RGB(red: UInt8(x * 30), green: UInt8(y * 50), blue: 7))
            }
        }
    }
}
