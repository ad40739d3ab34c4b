import CollageTestSupport
import XCTest
@testable import Vips

/// HEIF photos decode through the threaded libde265 plugin (`Sources/CHEVC`)
/// that `Vips.start` registers with libheif: libvips' loader uses it, and
/// the pixels are those libheif's own decoder gives (the `vips` command,
/// which does not register it).
final class ThreadedHEVCTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// Four flat quadrants and a gradient band: colours to find again.
    private func scene() -> PixelBuffer {
        PixelBuffer(width: 640, height: 480) { x, y in
            if y >= 400 { return RGB(red: UInt8(x * 255 / 639), green: 128, blue: UInt8(255 - x * 255 / 639)) }
            switch (x < 320, y < 200) {
            case (true, true): return RGB(red: 200, green: 30, blue: 40)
            case (false, true): return RGB(red: 30, green: 160, blue: 60)
            case (true, false): return RGB(red: 40, green: 60, blue: 200)
            case (false, false): return RGB(red: 230, green: 220, blue: 90)
            }
        }
    }

    func testAHEICDecodesThroughThePluginWithLibheifsOwnPixels() throws {
        let heic = folder.file("scene.heic"), reference = folder.file("reference.png")
        try writeImage(scene(), suffix: ".heic", to: heic)
        try runTool("vips", ["copy", heic, reference])

        let before = Vips.hevcPicturesDecoded
        let decoded = try tile(of: heic, width: 640, height: 480)
        XCTAssertGreaterThan(Vips.hevcPicturesDecoded, before, "libvips' HEIF loader went through the threaded decoder")
        let expected = try tile(of: reference, width: 640, height: 480)
        XCTAssertTile(decoded, width: 640, height: 480)

        var largest = 0
        for y in 0..<480 {
            for x in 0..<640 {
                let a = decoded.pixel(x: x, y: y), b = expected.pixel(x: x, y: y)
                largest = max(largest, abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)),
                              abs(Int(a.blue) - Int(b.blue)))
            }
        }
        XCTAssertEqual(largest, 0, "the same pixels as libheif's own decoder")
        XCTAssertColour(decoded.pixel(x: 100, y: 100), RGB(red: 200, green: 30, blue: 40), tolerance: 12)
        XCTAssertColour(decoded.pixel(x: 500, y: 300), RGB(red: 230, green: 220, blue: 90), tolerance: 12)
    }

    func testATruncatedHEICIsAnErrorNotAHang() throws {
        let heic = folder.file("scene.heic"), cut = folder.file("cut.heic")
        try writeImage(scene(), suffix: ".heic", to: heic)
        let bytes = try readBytes(heic)
        try writeBytes(Array(bytes[..<(bytes.count * 2 / 3)]), to: cut)
        XCTAssertThrowsError(try tile(of: cut, width: 64, height: 48))
    }
}
