import CollageTestSupport
import Glibc
import XCTest
@testable import Vips

/// A RAW's JPEG preview is decoded where it lies in the file
/// (`ImageFile.tile(jpegIn:offset:length:)`): only its byte range is read,
/// and what lies around it is never taken for part of it.
final class PreviewInPlaceTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let colour = RGB(red: 40, green: 150, blue: 210)

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// A file of 4096 bytes of 0xFF, a 320x240 JPEG of `colour`, then 1000
    /// bytes of another JPEG's start: the range is the JPEG in the middle.
    private func container() throws -> (path: String, offset: Int, length: Int) {
        let jpeg = try Encoder.encode(PixelBuffer(width: 320, height: 240, fill: colour), suffix: ".jpg").bytes
        let path = folder.file("container.bin")
        try writeBytes([UInt8](repeating: 0xFF, count: 4096) + jpeg + Array(jpeg.prefix(1000)), to: path)
        return (path, 4096, jpeg.count)
    }

    func testTheRangeDecodesToItsTile() throws {
        let (path, offset, length) = try container()
        let pixels = try withDescriptor(path) {
            try ImageFile.tile(jpegIn: $0, offset: offset, length: length, width: 64, height: 48, background: .white)
        }
        XCTAssertTile(pixels, width: 64, height: 48)
        XCTAssertColour(pixels.pixel(x: 32, y: 24), colour, tolerance: 3)
        XCTAssertColour(pixels.pixel(x: 0, y: 0), colour, tolerance: 3)
    }

    func testTurnedAsTheRawSays() throws {
        let (path, offset, length) = try container()
        let pixels = try withDescriptor(path) {
            try ImageFile.tile(jpegIn: $0, offset: offset, length: length, width: 48, height: 64, background: .white,
                               orientation: 6)
        }
        XCTAssertTile(pixels, width: 48, height: 64)
    }

    func testACutRangeOrOneBesideTheJPEGIsAnError() throws {
        let (path, offset, length) = try container()
        try withDescriptor(path) { descriptor in
            XCTAssertThrowsError(try ImageFile.tile(jpegIn: descriptor, offset: offset, length: length / 2, width: 64,
                                                    height: 48, background: .white), "a truncated preview")
            XCTAssertThrowsError(try ImageFile.tile(jpegIn: descriptor, offset: 0, length: 4096, width: 64, height: 48,
                                                    background: .white), "not a JPEG")
            XCTAssertThrowsError(try ImageFile.tile(jpegIn: descriptor, offset: offset, length: 0, width: 64, height: 48,
                                                    background: .white), "an empty range")
        }
    }
}
