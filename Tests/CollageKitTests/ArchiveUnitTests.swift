import Foundation
import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// The pure parts of `--flag` and `--html`: a tile's signature, the index
/// of hashes, the page built from records, the links.
final class TileSignatureTests: XCTestCase {
    private func noise(_ seed: UInt64, width: Int = 120, height: Int = 90) -> PixelBuffer {
        var state = seed
        return PixelBuffer(width: width, height: height) { x, y in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let grain = UInt8(truncatingIfNeeded: state >> 59)
            return RGB(red: UInt8(x * 2 % 256) &+ grain, green: UInt8(y * 2 % 256), blue: UInt8((x + y) % 256))
        }
    }

    func testAFlatTileIsBlankAndAnyDeviationOfTwoIsNot() {
        XCTAssertTrue(TileSignature(PixelBuffer(width: 50, height: 40, fill: RGB(red: 10, green: 200, blue: 30))).blank)
        // One band alternating 0 and 4: deviation 2, not below it.
        let stripes = PixelBuffer(width: 50, height: 40) { x, _ in RGB(red: 100, green: x % 2 == 0 ? 100 : 104, blue: 100) }
        XCTAssertFalse(TileSignature(stripes).blank)
        let faint = PixelBuffer(width: 50, height: 40) { x, _ in RGB(red: 100, green: x % 2 == 0 ? 100 : 102, blue: 100) }
        XCTAssertTrue(TileSignature(faint).blank, "a deviation of 1 is flat")
        XCTAssertFalse(TileSignature(noise(1)).blank)
    }

    func testTheSameLookAtAnotherSizeHashesAlikeAndAnotherLookDoesNot() throws {
        let picture = PixelBuffer(width: 240, height: 180) { x, y in
            RGB(red: UInt8((x * x / 240) % 256), green: UInt8(y), blue: UInt8((x / 30 + y / 30) % 2 * 200))
        }
        let small = try ImageFile.decode(bytes: Encoder.encode(picture, suffix: ".jpg[Q=70]").bytes)
        let a = try XCTUnwrap(TileSignature(picture).hash), b = try XCTUnwrap(TileSignature(small).hash)
        XCTAssertLessThanOrEqual(TileSignature.distance(a, b), Flagger.threshold, "re-encoded")
        let mirrored = PixelBuffer(width: 240, height: 180) { x, y in picture.pixel(x: 239 - x, y: y) }
        XCTAssertGreaterThan(TileSignature.distance(a, try XCTUnwrap(TileSignature(mirrored).hash)), Flagger.threshold)
        XCTAssertNil(TileSignature(PixelBuffer(width: 8, height: 8, fill: .white)).hash, "too small for 9x8 boxes")
    }

    func testTheIndexFindsTheEarliestWithinFourBitsAndNothingAtFive() {
        var index = HashIndex()
        let base: UInt64 = 0xDEAD_BEEF_0123_4567
        index.insert(base, PathName("first"))
        index.insert(base ^ 0b1, PathName("second"))
        // Four bits apart, one in each of four slices: found through the fifth.
        let four = base ^ (1 << 3) ^ (1 << 16) ^ (1 << 30) ^ (1 << 45)
        XCTAssertEqual(index.nearest(four, within: 4, excluding: PathName("x")), PathName("first"))
        let five = four ^ (1 << 60)
        XCTAssertNil(index.nearest(five, within: 4, excluding: PathName("x")))
        XCTAssertEqual(index.nearest(base, within: 4, excluding: PathName("first")), PathName("second"),
                       "an image is not its own duplicate")
    }
}

final class HTMLIndexTests: XCTestCase {
    func testOneAreaPerTileWithItsRectangleAndEscapedText() {
        let tiles = [HTMLIndex.Tile(path: PathName("p/a&b.jpg"), rect: TileRect(x: 0, y: 0, width: 600, height: 400),
                                    caption: nil),
                     HTMLIndex.Tile(path: PathName("p/c.jpg"), rect: TileRect(x: 600, y: 10, width: 300, height: 200),
                                    caption: "<b>\"hi\"</b>")]
        let sheet = HTMLIndex.Sheet(output: PathName("s 1.jpg"), number: 3, width: 1200, height: 800, tiles: tiles,
                                    images: tiles.map(\.path))
        let page = String(decoding: HTMLIndex.page([sheet], link: { PageLinks.percentEncoded($0.bytes) }), as: UTF8.self)
        XCTAssertTrue(page.contains("<img src=\"s%201.jpg\" width=\"1200\" height=\"800\""), page)
        XCTAssertTrue(page.contains("Sheet 3"), page)
        XCTAssertTrue(page.contains("coords=\"0,0,600,400\" href=\"p%2Fa%26b.jpg\" title=\"a&amp;b.jpg\" alt=\"a&amp;b.jpg\""), page)
        XCTAssertTrue(page.contains("coords=\"600,10,900,210\""), page)
        XCTAssertTrue(page.contains("title=\"&lt;b&gt;&quot;hi&quot;&lt;/b&gt;\""), page)
        XCTAssertEqual(page.components(separatedBy: "<area ").count - 1, 2)
        XCTAssertFalse(page.contains("<script"))
    }

    func testLinksAreRelativeToThePagesRealFolder() throws {
        let root = "/tmp/collage-links-\(getpid())"
        defer { _ = try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/site/deep", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/photos/x y", withIntermediateDirectories: true)
        XCTAssertEqual(symlink(root + "/photos", root + "/site/linked"), 0)
        let links = PageLinks(page: PathName(root + "/site/deep/../index.html"))
        XCTAssertEqual(links.href(PathName(root + "/photos/x y/a#1?.jpg")), "../photos/x%20y/a%231%3F.jpg")
        XCTAssertEqual(links.href(PathName(root + "/site/linked/b.jpg")), "../photos/b.jpg", "through the real folder")
        XCTAssertEqual(links.href(PathName(bytes: Array((root + "/site/c").utf8) + [0xE9, 0x25])), "c%E9%25")
    }
}
