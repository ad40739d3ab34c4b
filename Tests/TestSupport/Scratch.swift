import Foundation
import Glibc
import Vips
import XCTest

// The helpers every test target shares, one copy each: a scratch folder,
// a test failure, colour assertions and the CRC of PNG chunks.

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A fresh folder under /tmp, removed (with everything in it) when the object goes away.
public final class TemporaryDirectory {
    public let path: String

    public init() throws {
        var template = Array("/tmp/collage-tests-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    /// A path inside the folder; `name` may hold slashes.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

public func XCTAssertColour(_ actual: RGB, _ expected: RGB, tolerance: Int = 0,
                            _ message: @autoclosure () -> String = "",
                            file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertLessThanOrEqual(actual.distance(to: expected), tolerance,
                             "got \(actual), expected \(expected) ±\(tolerance) \(message())", file: file, line: line)
}

/// The CRC-32 of a PNG chunk's type and data.
public func pngCRC32<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return ~crc
}
