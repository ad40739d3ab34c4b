import CollageTestSupport
import Dispatch
import Foundation
import FileFacts
import Locking
import XCTest
import CVipsShim
@testable import Vips

/// libvips' error buffer is one for the process: two decodes failing at
/// once must still each say only their own trouble. Each bad JPEG here
/// holds a marker of its own after its frame header (where the structure
/// check does not look), so libjpeg's reason, "Unsupported marker type
/// 0xNN", names a number only that file gives.
final class ErrorCrossTalkTests: XCTestCase {
    /// Another JPEG's reason, written to libvips' buffer and not yet read
    /// by its own image (as when two fail at the same moment), is never
    /// this image's: each image's messages are its own capture's.
    func testAnotherImagesReasonInTheBufferIsNotThisOnes() throws {
        let folder = try TemporaryDirectory()
        let jpeg = try Encoder.encode(PixelBuffer(width: 64, height: 48, fill: .white), suffix: ".jpg[strip]").bytes
        let sos = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        let path = folder.file("bad.jpg")
        try writeBytes(Array(jpeg[..<sos]) + [0xFF, 0x12, 0, 4, 0, 0] + Array(jpeg[sos...]), to: path)
        try Vips.start()
        LibvipsErrors.drop(linesContaining: "")
        cvips_error_append("VipsJpeg: Unsupported marker type 0x77")
        cvips_error_append("descriptor: bad seek to 2600228")
        XCTAssertThrowsError(try withDescriptor(path) { try ImageFile.header(descriptor: $0) }) {
            let message = "\($0)"
            XCTAssertTrue(message.contains("0x12"), "its own reason: \(message)")
            XCTAssertFalse(message.contains("0x77"), "another JPEG's: \(message)")
            XCTAssertFalse(message.contains("bad seek"), "another file's: \(message)")
        }
        LibvipsErrors.drop(linesContaining: "")
    }

    func testManyBadFilesDecodingAtOnceEachSayOnlyTheirOwnTrouble() throws {
        let folder = try TemporaryDirectory()
        let jpeg = try Encoder.encode(PixelBuffer(width: 64, height: 48, fill: RGB(red: 90, green: 120, blue: 200)),
                                      suffix: ".jpg[strip]").bytes
        guard let sos = (0..<jpeg.count - 1).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }) else {
            return XCTFail("no start of scan")
        }
        let count = 24
        var made: [(path: String, marker: Int)] = []
        for index in 0..<count {
            let marker = 0x10 + index
            let bytes = Array(jpeg[..<sos]) + [0xFF, UInt8(marker), 0, 4, 0, 0] + Array(jpeg[sos...])
            let path = folder.file("cut-\(index).jpg")
            try writeBytes(bytes, to: path)
            // The segment's data starts 4 bytes after its marker; libjpeg skips claim - 2 bytes of it.
            made.append((path, marker))
        }
        let cut = made
        let messages = Locked([String](repeating: "", count: count))
        for _ in 0..<4 {
            DispatchQueue.concurrentPerform(iterations: count) { index in
                let message: String
                do {
                    _ = try withDescriptor(cut[index].path) { descriptor in
                        try ImageFile.tile(descriptor: descriptor, width: 32, height: 24, background: .white)
                    }
                    message = "decoded"
                } catch {
                    message = "\(error)"
                }
                messages.withLock { $0[index] = message }
            }
            let seen = messages.withLock { $0 }
            for (index, message) in seen.enumerated() {
                XCTAssertNotEqual(message, "decoded", "cut-\(index).jpg")
                for (other, file) in cut.enumerated() where other != index {
                    XCTAssertFalse(message.contains(String(format: "0x%02x", file.marker)), "cut-\(index).jpg tells cut-\(other).jpg's trouble: \(message)")
                }
            }
        }
    }
}
