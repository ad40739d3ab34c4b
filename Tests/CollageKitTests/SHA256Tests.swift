import CollageTestSupport
import Foundation
import XCTest
@testable import CollageKit

/// The review page's pin (SHA-256): FIPS 180-4's examples, a message fed
/// in pieces of every size around a block, and files against sha256sum.
final class SHA256Tests: XCTestCase {
    func testTheStandardsExamples() {
        XCTAssertEqual(SHA256.hex([UInt8]()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testPiecesOfAnySizeGiveTheWholesDigest() {
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.hex(message)
        for piece in [1, 3, 55, 56, 63, 64, 65, 127, 128, 999] {
            var hash = SHA256()
            for start in stride(from: 0, to: message.count, by: piece) {
                hash.update(message[start..<min(start + piece, message.count)])
            }
            XCTAssertEqual(hash.hex(), whole, "pieces of \(piece)")
        }
    }

    func testAFilesDigestIsSha256sums() throws {
        let folder = try TemporaryDirectory()
        for size in [0, 64, 65_536, 65_537, 200_003] {
            let path = folder.file("file-\(size)")
            try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }).write(to: URL(fileURLWithPath: path))
            let expected = try sha256sum(path)
            XCTAssertEqual(SHA256.hex(ofFile: PathName(path)), expected, "\(size) bytes")
        }
    }

    /// What coreutils' sha256sum says of the file at `path`.
    private func sha256sum(_ path: String) throws -> String? {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init)
    }
}
