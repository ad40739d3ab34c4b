import CollageTestSupport
@testable import FileFacts
import XCTest
@testable import Vips

/// What a HEIF decode is counted to hold: through libvips' loader
/// (`HEIFStructure.heldPerPixel`) the whole picture three times over
/// (libde265's picture, libheif's planes, the RGB libvips keeps), whatever
/// the tile; decoded small (`HEIFStructure.shrunkPerPixel`), libde265's
/// picture and what it keeps beside it, and the coded picture twice.
final class HEIFBudgetTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }

    private func summary(_ bytes: [UInt8]) throws -> StructureCheck.Summary {
        let path = folder.file("image.heic")
        try writeBytes(bytes, to: path)
        return try withDescriptor(path) { try StructureCheck.check(descriptor: $0, format: "heif") }
    }

    /// An ipco with one ispe and, when given, a pixi of three channels and
    /// a codec configuration box (an empty one: the check does not read it).
    private func properties(_ width: Int, _ height: Int, bits: UInt8? = nil, codec: String? = nil) -> [UInt8] {
        var children = Hostile.fullBox("ispe", be32(width) + be32(height))
        if let bits { children += Hostile.fullBox("pixi", [3, bits, bits, bits]) }
        if let codec { children += Hostile.box(codec, []) }
        return Hostile.box("iprp", Hostile.box("ipco", children))
    }

    /// An iinf of one item (an infe of version 2) of `type`.
    private func items(_ type: String) -> [UInt8] {
        Hostile.fullBox("iinf", be16(1) + Hostile.fullBox("infe", version: 2, be16(1) + be16(0) + Array(type.utf8) + [0]))
    }

    func testA12MegapixelHEICIsCountedSixBytesAPixel() throws {
        let eight = try summary(Hostile.heif(meta: properties(4032, 3024, bits: 8)))
        XCTAssertEqual(eight.decodeBytes, 4032 * 3024 * 6)
        XCTAssertEqual(eight.bufferBytes, 4032 * 3024 * 4, "the one-buffer limit is unchanged")
        let unsaid = try summary(Hostile.heif(meta: properties(4032, 3024)))
        XCTAssertEqual(unsaid.decodeBytes, 4032 * 3024 * 6, "no pixi box: 8 bits")
    }

    func testAn8BitHEVCImageDecodedSmallIsCountedThreeBytesAPixelAndTwiceTheFile() throws {
        let bytes = Hostile.heif(meta: items("hvc1") + properties(4032, 3024, bits: 8, codec: "hvcC"))
        XCTAssertEqual(try summary(bytes).shrunkDecodeBytes, 4032 * 3024 * 3 + 2 * bytes.count)
        for (what, meta) in [("10 bits", properties(4032, 3024, bits: 10)), ("AV1", properties(4032, 3024, codec: "av1C")),
                             ("a grid", items("grid") + properties(4032, 3024))] {
            XCTAssertEqual(try summary(Hostile.heif(meta: meta)).shrunkDecodeBytes, 0, "\(what): not decoded small")
        }
    }

    func testDeeperSamplesCountTwice() throws {
        let ten = try summary(Hostile.heif(meta: properties(4032, 3024, bits: 10)))
        XCTAssertEqual(ten.decodeBytes, 4032 * 3024 * 12, "10-bit planes and 16-bit RGB")
    }

    /// Through the header path: a real HEIC written by libvips (libheif).
    func testARealHEICsHeaderCarriesTheEstimate() throws {
        let path = folder.file("real.heic")
        try writeImage(PixelBuffer(width: 640, height: 480) { x, y in RGB(red: UInt8(x % 256), green: UInt8(y % 256), blue: 90) },
                       suffix: ".heic", to: path)
        let header = try header(of: path)
        XCTAssertEqual(header.format, "heif")
        XCTAssertEqual(header.decodeBytes, ImageHeader.workingSet + 640 * 480 * 6)
        let size = try readBytes(path).count
        XCTAssertEqual(header.decodeBytes(forTile: 160, 120), ImageHeader.workingSet + 640 * 480 * 3 + 2 * size,
                       "decoded small")
        XCTAssertEqual(header.decodeBytes(forTile: 320, 240), header.decodeBytes, "shrunk less than 4x: libvips' loader")
    }

    /// Two 12 MP HEICs do not fit the default 116 MiB budget together (they
    /// peaked at 174-192 MiB when they did); one fits beside what is left.
    func testTwelveMegapixelHEICsDoNotFitTheDefaultBudgetTwice() {
        let header = ImageHeader(width: 4032, height: 3024, orientation: 1, format: "heif",
                                 structureBytes: 4032 * 3024 * HEIFStructure.heldPerPixel)
        let budget = 116 << 20
        XCTAssertGreaterThan(2 * header.decodeBytes, budget)
        XCTAssertLessThanOrEqual(header.decodeBytes, budget - 40 << 20, "room for JPEGs beside it")
    }

    /// Decoded small into the sheets' 600x533 cells, two 12 MP HEICs of up
    /// to 8 MB fit the default budget at once.
    func testTwelveMegapixelHEICsDecodedSmallFitTheDefaultBudgetTwice() {
        var header = ImageHeader(width: 4032, height: 3024, orientation: 1, format: "heif",
                                 structureBytes: 4032 * 3024 * HEIFStructure.heldPerPixel)
        header.shrunkDecodeBytes = 4032 * 3024 * HEIFStructure.shrunkPerPixel + 2 * 8_000_000
        XCTAssertLessThanOrEqual(2 * header.decodeBytes(forTile: 600, 533), 116 << 20)
        var withAlpha = ImageHeader(width: 4032, height: 3024, orientation: 1, format: "heif", bands: 4,
                                    structureBytes: header.structureBytes)
        withAlpha.shrunkDecodeBytes = header.shrunkDecodeBytes
        XCTAssertEqual(withAlpha.decodeBytes(forTile: 600, 533), withAlpha.decodeBytes, "alpha: libvips' loader")
    }
}
