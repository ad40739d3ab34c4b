import FileFacts
import Foundation
import CollageTestSupport
import XCTest
@testable import Vips

/// Content that is not one of our formats is refused as `.unsupported`
/// whatever its name (even what libvips itself would load); a header is
/// read without its pixels; a truncated file is an error, never a tile.
final class ImageFileRefusalTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

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
        try runTool("vips", ["copy", try flatPNG(in: folder), ppm])
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
