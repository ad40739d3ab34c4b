import XCTest
@testable import CollageKit

/// A file is still being written when its decoder finds it cut short and it
/// was modified within the last minute: `now` is given, no clock is read.
final class StillBeingWrittenTests: XCTestCase {
    private let now: Int64 = 1_800_000_000
    private func modified(secondsAgo: Int64) -> Int64 { (now - secondsAgo) * 1_000_000_000 }

    func testCutShortAndRecentIsStillBeingWritten() {
        for message in ["cannot decode jpeg: VipsJpeg: Premature end of input file",
                        "truncated png: chunk IDAT of 8192 bytes at offset 787638 in a 792432-byte file",
                        "cannot decode gif: gifload_source: Unexpected end of GIF source data",
                        "moov atom not found", "truncated raw data (it runs past the end of the file)"] {
            XCTAssertTrue(StillBeingWritten.applies(message: message, modified: modified(secondsAgo: 5), now: now), message)
            XCTAssertTrue(StillBeingWritten.applies(message: message, modified: modified(secondsAgo: 59), now: now), message)
            XCTAssertFalse(StillBeingWritten.applies(message: message, modified: modified(secondsAgo: 60), now: now), message)
            XCTAssertFalse(StillBeingWritten.applies(message: message, modified: modified(secondsAgo: 7200), now: now), message)
        }
    }

    func testOtherFailuresAreFailuresHoweverRecent() {
        for message in ["cannot decode png: vipspng: libpng read error: IDAT: CRC error",
                        "corrupt tiff: the IFD chain loops back to offset 8", "Permission denied"] {
            XCTAssertFalse(StillBeingWritten.applies(message: message, modified: modified(secondsAgo: 1), now: now), message)
        }
    }
}
