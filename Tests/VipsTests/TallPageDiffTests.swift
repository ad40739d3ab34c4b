import Foundation
import Glibc
import XCTest
@testable import Vips

/// Pages too tall to hold in memory as a pair (1280x20000: 77 MB each) are
/// kept on disc (`FullPicture.onDisc`) and analysed through a mapping of
/// their rows: the analysis gives exactly what it gives in memory.
final class TallPageDiffTests: XCTestCase {
    private func bytes(_ pixels: PixelBuffer?) -> [UInt8]? { pixels?.withUnsafeBytes { Array($0) } }

    private static let width = 1280, height = 20000

    /// A page of "text": blocks of 20 rows, 14 rows of ink (dark pixels
    /// where a hash of the place says, every row its own) and 6 white.
    private static func ink(_ x: Int, _ y: Int) -> RGB {
        guard y % 20 < 14, x >= 40, x < width - 40 else { return .white }
        var hash = UInt32(truncatingIfNeeded: (x / 3) &* 2_654_435_761) ^ UInt32(truncatingIfNeeded: y &* 40503)
        hash = (hash ^ (hash >> 15)) &* 2_246_822_519
        hash ^= hash >> 13
        return hash % 5 == 0 ? RGB(red: 30, green: 30, blue: UInt8(40 + y % 7)) : .white
    }

    private func page(_ paint: @escaping (Int, Int) -> RGB = ink) throws -> FullPicture {
        try FullPicture(PixelBuffer(width: Self.width, height: Self.height, paint: paint))
    }

    /// Both ways: in memory, and with both pictures on disc.
    private func bothWays(_ a: FullPicture, _ b: FullPicture) throws -> (memory: Difference, disc: Difference) {
        let (onDiscA, onDiscB) = (try a.keptOnDisc(), try b.keptOnDisc())
        XCTAssertTrue(onDiscA.onDisc && onDiscB.onDisc && !a.onDisc)
        XCTAssertEqual(onDiscA.byteCount, 0, "a picture on disc holds none of its pixels")
        XCTAssertEqual(bytes(try onDiscA.fitted(width: 64, height: 1000)), bytes(try a.fitted(width: 64, height: 1000)),
                       "libvips reads the same pixels back")
        return (try Difference.compare(a, b, options: DifferenceOptions()),
                try Difference.compare(onDiscA, onDiscB, options: DifferenceOptions()))
    }

    private func assertSame(_ memory: Difference, _ disc: Difference, file: StaticString = #filePath,
                            line: UInt = #line) throws {
        XCTAssertEqual(disc.pixels, memory.pixels, "pixels", file: file, line: line)
        XCTAssertEqual(disc.noise, memory.noise, "noise", file: file, line: line)
        XCTAssertEqual(disc.raw, memory.raw, "raw", file: file, line: line)
        XCTAssertEqual(disc.shifts, memory.shifts, "shifts", file: file, line: line)
        XCTAssertEqual(disc.change, memory.change, "change", file: file, line: line)
        XCTAssertEqual(disc.changeBox, memory.changeBox, "changeBox", file: file, line: line)
        XCTAssertEqual(disc.differingBox, memory.differingBox, "box", file: file, line: line)
        let (width, height) = (memory.differingBox?.width ?? 1, memory.differingBox?.height ?? 1)
        XCTAssertEqual(bytes(try disc.boxMask?.fitted(width: width, height: height)),
                       bytes(try memory.boxMask?.fitted(width: width, height: height)), "mask", file: file, line: line)
    }

    /// A 200x30 box changed 200 rows from the bottom (its 6,000 pixels
    /// but those anti-aliasing explains on this dotted page), the same
    /// through the disc as in memory.
    func testABoxChangedNearTheBottomIsFoundTheSameOnDisc() throws {
        let top = Self.height - 230
        let before = try page()
        let after = try page { x, y in
            x >= 500 && x < 700 && y >= top && y < top + 30 ? RGB(red: 220, green: 20, blue: 20) : Self.ink(x, y)
        }
        let (memory, disc) = try bothWays(before, after)
        XCTAssertGreaterThan(memory.pixels, 5000)
        XCTAssertLessThanOrEqual(memory.pixels, 6000)
        XCTAssertEqual(memory.changeBox, PixelRect(x: 500, y: top, width: 200, height: 30))
        XCTAssertNotNil(memory.change)
        try assertSame(memory, disc)
        let (same, sameOnDisc) = try bothWays(before, before)
        XCTAssertEqual([same.pixels, same.raw, sameOnDisc.pixels, sameOnDisc.raw], [0, 0, 0, 0])
    }

    /// A band near the bottom moved down 3 rows (3 white rows inserted
    /// at 19000, 3 white rows taken out below it), and a box changed below
    /// the band: the shift and the box, the same through the disc.
    func testABandShiftedNearTheBottomIsFoundTheSameOnDisc() throws {
        let before = try page()
        let after = try page { x, y in
            if y >= 19000 && y < 19003 { return .white }
            if x >= 300 && x < 340 && y >= 19800 && y < 19810 { return RGB(red: 0, green: 160, blue: 0) }
            return Self.ink(x, y >= 19003 && y < 19617 ? y - 3 : y)
        }
        let (memory, disc) = try bothWays(before, after)
        XCTAssertEqual(memory.shifts.map { [$0.y, $0.dy, $0.dx] }, [[19000, 3, 0]], "\(memory.shifts)")
        XCTAssertGreaterThan(memory.pixels, 300, "the box below the band")
        XCTAssertEqual(memory.changeBox.map { $0.y >= 19800 && $0.y + $0.height <= 19810 }, true)
        XCTAssertGreaterThan(memory.raw, 10000, "pixelmatch, not aligning, counts the moved band")
        try assertSame(memory, disc)
    }

    /// Decoded from a file straight to disc: the same pixels as decoded to
    /// memory, written strip by strip.
    func testAFileDecodedToDiscHasItsPixels() throws {
        let pixels = PixelBuffer(width: 300, height: 2000, paint: Self.ink)
        let path = NSTemporaryDirectory() + "tall-\(getpid()).png"
        try writeImage(pixels, suffix: ".png", to: path)
        defer { unlink(path) }
        let memory = try withDescriptor(path) { try ImageFile.full(descriptor: $0) }
        let disc = try withDescriptor(path) { try ImageFile.full(descriptor: $0, onDisc: true) }
        XCTAssertTrue(disc.onDisc)
        XCTAssertEqual(bytes(try disc.pixels()), bytes(try memory.pixels()))
        XCTAssertEqual(bytes(try disc.pixels()), bytes(pixels))
    }
}
