import CollageTestSupport
import FileFacts
import XCTest
@testable import Vips

/// EXIF DateTimeOriginal, read with the header (no pixel decoded): a day,
/// or nil when the field is absent, blank or not a date.
final class DateTakenTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func written(dated value: String?, suffix: String = ".jpg") throws -> ImageHeader {
        let pixels = PixelBuffer(width: 64, height: 48, fill: RGB(red: 90, green: 120, blue: 150))
        let exif = value.map { ["exif-ifd2-DateTimeOriginal": $0] } ?? [:]
        let path = folder.file("dated\(suffix)")
        try writeBytes(Encoder.encode(pixels, suffix: suffix, exif: exif).bytes, to: path)
        return try header(of: path)
    }

    func testTheDateTakenIsReadFromTheHeader() throws {
        let dated = try written(dated: "2019:05:03 14:22:01")
        XCTAssertEqual(dated.dateTaken, "2019-05-03")
        XCTAssertEqual(dated.width, 64)
        XCTAssertNil(try written(dated: nil).dateTaken, "no EXIF")
    }

    func testABlankOrMalformedDateIsNil() throws {
        for value in ["    :  :     :  :  ", "0000:00:00 00:00:00", "2019-05-03 14:22:01", "2019:13:03 10:00:00",
                      "2019:05:3x 10:00:00", "yesterday"] {
            XCTAssertNil(try written(dated: value).dateTaken, value)
        }
        XCTAssertEqual(try written(dated: "2019:05:03").dateTaken, "2019-05-03", "a date without a time")
    }

    func testTheDateDoesNotChangeEquality() throws {
        XCTAssertEqual(ImageHeader(width: 4, height: 3, orientation: 1, format: "jpeg", dateTaken: "2019-05-03"),
                       ImageHeader(width: 4, height: 3, orientation: 1, format: "jpeg"))
        XCTAssertNil(ImageHeader(width: 4, height: 3, orientation: 1, format: "jpeg").dateTaken)
    }
}
