import CollageTestSupport
import Media
import XCTest
@testable import Vips

/// Lossy DNGs (the raw data as JPEG tiles): LibRaw decodes them, though its
/// JPEG source's last read reaches the end of the file.
final class LossyDNGTests: XCTestCase {
    func testALossyDNGDecodesFromItsRawData() throws {
        let folder = try TemporaryDirectory()
        var dng = DNGFile()
        dng.lossy = true
        dng.preview = try Encoder.encode(PixelBuffer(width: 160, height: 100, fill: .black), suffix: ".jpg").bytes
        let path = folder.file("lossy.dng")
        try writeBytes(dng.bytes, to: path)
        let header = try withDescriptor(path) { try MediaFile.header(descriptor: $0) }
        XCTAssertEqual([header.width, header.height], [600, 400])
        for mode in [RawMode.preview, .full] {
            let made = try withDescriptor(path) {
                try MediaFile.tile(descriptor: $0, width: 300, height: 200, background: .white,
                                   header: try MediaFile.header(descriptor: $0, options: MediaOptions(raw: mode)))
            }
            XCTAssertEqual(made.source, "raw", "\(mode)")
            XCTAssertColour(made.pixels.pixel(x: 60, y: 100), dng.colour, tolerance: 24, "the scene's left half (\(mode))")
            XCTAssertColour(made.pixels.pixel(x: 240, y: 100), .white, tolerance: 10, "the scene's right half (\(mode))")
        }
    }

    func testALossyDNGCutShortFails() throws {
        let folder = try TemporaryDirectory()
        var dng = DNGFile()
        dng.lossy = true
        let bytes = dng.bytes
        let path = folder.file("cut.dng")
        try writeBytes(Array(bytes.prefix(bytes.count - 2000)), to: path)
        XCTAssertThrowsError(try withDescriptor(path) {
            try MediaFile.tile(descriptor: $0, width: 300, height: 200, background: .white,
                               header: try MediaFile.header(descriptor: $0))
        }) { error in
            XCTAssertTrue("\(error)".contains("truncated"), "\(error)")
        }
    }
}
