import FileFacts
import Foundation
import CollageTestSupport
import XCTest
@testable import Vips

/// Every input kind the loaders accept comes out as a 3-band 8-bit tile of
/// exactly the size asked for. (What is refused: ImageFileRefusalTests.)
final class ImageFileDecodeTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let colour = RGB(red: 200, green: 30, blue: 60)

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// What `vipsheader` says of a file: "60x40 ushort, 4 bands, rgb16, pngload".
    private func vipsHeader(_ path: String) throws -> String {
        try runTool("vipsheader", [path]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Inputs that must decode

    func testGreyPNGBecomesThreeEqualBands() throws {
        let grey = folder.file("grey.png")
        try runTool("vips", ["colourspace", try flatPNG(in: folder, colour: colour), grey, "b-w"])
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
        try runTool("vips", ["bandjoin_const", try flatPNG(in: folder, colour: colour), rgba, "128"])  // alpha 128/255
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
        try runTool("vips", ["pngsave", try flatPNG(in: folder, colour: colour), palette, "--palette"])
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
        // Through a CMYK profile and JPEG and back: close, not exact (libvips'
        // own arithmetic made it, lcms brings it back).
        XCTAssertColour(pixels.pixel(x: 15, y: 10), muted, tolerance: 12)
        // As lcms converts the same file with the standard CMYK profile
        // (within 4 levels: the tile is resized in lcms' PCS, the reference is not).
        let lcms = folder.file("lcms.png")
        try runTool("vips", ["icc_transform", cmyk, lcms + "[strip]", "srgb", "--input-profile", "cmyk"])
        XCTAssertColour(pixels.pixel(x: 15, y: 10), try tile(of: lcms, width: 30, height: 20).pixel(x: 15, y: 10),
                        tolerance: 4)
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
}
