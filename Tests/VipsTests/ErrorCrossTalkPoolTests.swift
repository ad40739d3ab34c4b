import CollageTestSupport
import CVipsShim
import Dispatch
import Foundation
import FileFacts
import Locking
import XCTest
@testable import Vips

/// What libvips writes on the threads of its own pools is still each
/// image's own. A truncated JPEG's thumbnail reads the file on a pool's
/// threads, where libjpeg says "Premature end of input file": that line
/// went to libvips' shared buffer, and another JPEG failing at the same
/// moment took it (or this one took the other's). Each pool started while
/// an image is read now runs with that image's capture current.
final class ErrorCrossTalkPoolTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// A noisy JPEG (its entropy-coded data long), cut at `fraction` of its bytes.
    private func truncatedJPEG(_ name: String, at fraction: Double) throws -> String {
        let pixels = PixelBuffer(width: 320, height: 240) { x, y in
            let v = UInt32(truncatingIfNeeded: (x &* 7919) ^ (y &* 104729)) &* 2654435761
            return RGB(red: UInt8(truncatingIfNeeded: v >> 8), green: UInt8(truncatingIfNeeded: v >> 16),
                       blue: UInt8(truncatingIfNeeded: v >> 24))
        }
        let bytes = try Encoder.encode(pixels, suffix: ".jpg[strip]").bytes
        let path = folder.file(name)
        try writeBytes(Array(bytes[..<Int(Double(bytes.count) * fraction)]), to: path)
        return path
    }

    /// A JPEG with a marker of its own (0xFF `marker`) after its frame
    /// header: libjpeg's reason, "Unsupported marker type 0xNN", names it.
    private func markedJPEG(_ name: String, marker: UInt8) throws -> String {
        let jpeg = try Encoder.encode(PixelBuffer(width: 64, height: 48, fill: .white), suffix: ".jpg[strip]").bytes
        let sos = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        let path = folder.file(name)
        try writeBytes(Array(jpeg[..<sos]) + [0xFF, marker, 0, 4, 0, 0] + Array(jpeg[sos...]), to: path)
        return path
    }

    private static func failure(_ path: String) -> String {
        do {
            _ = try withDescriptor(path) { descriptor in
                let header = try ImageFile.header(descriptor: descriptor)
                return try ImageFile.tile(descriptor: descriptor, width: 32, height: 24, background: .white, header: header)
            }
            return "decoded"
        } catch {
            return "\(error)"
        }
    }

    /// Every time: a truncated JPEG's reason is written with its own
    /// capture current (none reaches libvips' buffer), and another JPEG's
    /// line left in the buffer (as when two fail at the same moment) is
    /// not this one's. The old code wrote the reason to the buffer and
    /// read the buffer whole: "Premature end of input file; Unsupported
    /// marker type 0x77".
    func testATruncatedJPEGsReasonIsItsOwnEveryTime() throws {
        let cut = try truncatedJPEG("cut.jpg", at: 0.6)
        for round in 0..<8 {
            LibvipsErrors.drop(linesContaining: "")
            cvips_error_append("VipsJpeg: Unsupported marker type 0x77")
            let before = cvips_uncaptured_errors()
            let message = Self.failure(cut)
            XCTAssertEqual(cvips_uncaptured_errors(), before, "round \(round): a line of the decode reached libvips' buffer")
            XCTAssertTrue(message.contains("Premature end"), "round \(round), its own reason: \(message)")
            XCTAssertFalse(message.contains("0x77"), "round \(round), another JPEG's reason: \(message)")
        }
        LibvipsErrors.drop(linesContaining: "")
    }

    /// Many bad JPEGs decoding at once, four rounds: truncated ones (cut
    /// at different points, their reasons read on pool threads) and ones
    /// with a marker each (read on the calling thread); each failure names
    /// only its own trouble, and no line reaches libvips' buffer.
    func testManyTruncatedAndBrokenJPEGsAtOnceEachSayOnlyTheirOwnTrouble() throws {
        var files: [(path: String, marker: UInt8?)] = []
        for index in 0..<8 {
            files.append((try truncatedJPEG("cut-\(index).jpg", at: 0.3 + 0.08 * Double(index)), nil))
            files.append((try markedJPEG("marked-\(index).jpg", marker: UInt8(0x10 + index)), UInt8(0x10 + index)))
        }
        let made = files
        let before = cvips_uncaptured_errors()
        for round in 0..<4 {
            let messages = Locked([String](repeating: "", count: made.count))
            DispatchQueue.concurrentPerform(iterations: made.count) { index in
                let message = Self.failure(made[index].path)
                messages.withLock { $0[index] = message }
            }
            for (index, message) in messages.withLock({ $0 }).enumerated() {
                let name = (made[index].path as NSString).lastPathComponent
                if let marker = made[index].marker {
                    XCTAssertTrue(message.contains(String(format: "0x%02x", marker)), "round \(round), \(name): \(message)")
                    XCTAssertFalse(message.contains("Premature end"), "round \(round), \(name) tells a truncated one's: \(message)")
                } else {
                    XCTAssertTrue(message.contains("Premature end"), "round \(round), \(name): \(message)")
                    XCTAssertFalse(message.contains("marker type"), "round \(round), \(name) tells a broken one's: \(message)")
                }
                for (other, file) in made.enumerated() where other != index {
                    guard let marker = file.marker, marker != made[index].marker else { continue }
                    XCTAssertFalse(message.contains(String(format: "0x%02x", marker)), "round \(round), \(name) tells another's: \(message)")
                }
            }
        }
        XCTAssertEqual(cvips_uncaptured_errors(), before, "a decode's line reached libvips' buffer")
    }
}
