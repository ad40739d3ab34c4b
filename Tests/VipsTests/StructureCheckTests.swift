import CollageTestSupport
@testable import FileFacts
import Foundation
import Glibc
import XCTest
@testable import Vips

/// The structure check on its own: every hostile file of the catalogue is
/// refused with the right kind (truncated or corrupt: `.load`; a claim too
/// large: `.tooLarge`) and a reason naming the problem; files libvips
/// itself writes, in every format and layout, pass; and the header path
/// refuses the hostile files before libvips reads them.
final class StructureCheckTests: XCTestCase {
    private let maxPixels = 268_402_689
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }

    private func format(of file: HostileFile) -> String {
        switch file.name.split(separator: "-").first {
        case "jpeg": return "jpeg"
        case "heif": return "heif"
        case let prefix?: return String(prefix)
        default: return ""
        }
    }

    private func check(_ bytes: [UInt8], format: String, name: String = "file") throws -> StructureCheck.Summary {
        let path = folder.file(name)
        try writeBytes(bytes, to: path)
        return try withDescriptor(path) { try StructureCheck.check(descriptor: $0, format: format, maxPixels: maxPixels) }
    }

    func testEveryHostileFileIsRefusedWithItsReason() throws {
        XCTAssertGreaterThanOrEqual(Hostile.catalogue.count, 30)
        for file in Hostile.catalogue {
            XCTAssertThrowsError(try check(file.bytes, format: format(of: file), name: file.name), file.name) { error in
                guard let error = error as? VipsError else { return XCTFail("\(file.name): \(error)") }
                XCTAssertEqual(error.code, file.tooLarge ? .tooLarge : .load, "\(file.name): \(error.message)")
                XCTAssertTrue(error.message.contains(file.reason), "\(file.name): '\(error.message)' names '\(file.reason)'")
            }
        }
    }

    /// Through the header path: libvips' sniffing picks the format, the
    /// check refuses it first.
    func testTheHeaderPathChecksFirst() throws {
        for file in Hostile.catalogue {
            let path = folder.file(file.name)
            try writeBytes(file.bytes, to: path)
            XCTAssertThrowsError(try withDescriptor(path) { try ImageFile.header(descriptor: $0, maxPixels: maxPixels) }) {
                let message = ($0 as? VipsError)?.message ?? "\($0)"
                XCTAssertTrue(message.contains(file.reason), "\(file.name): '\(message)'")
            }
        }
    }

    /// What libvips writes passes, in every layout the checks look into.
    func testFilesLibvipsWritesPass() throws {
        let picture = PixelBuffer(width: 300, height: 200) { x, y in RGB(red: UInt8(x % 256), green: UInt8(y), blue: 90) }
        let suffixes = [".png", ".png[interlace]", ".tif", ".tif[tile,tile_width=64,tile_height=64]",
                        ".tif[compression=deflate]", ".tif[pyramid,tile]", ".webp", ".webp[lossless]",
                        ".gif", ".jpg", ".jpg[interlace]"]
        for suffix in suffixes {
            let bytes = try Encoder.encode(picture, suffix: suffix).bytes
            let format = String(suffix.dropFirst().prefix { $0 != "[" })
            let name = ["tif": "tiff", "jpg": "jpeg"][format] ?? format
            XCTAssertNoThrow(try check(bytes, format: name), suffix)
        }
        let interlaced = try check(try Encoder.encode(picture, suffix: ".png[interlace]").bytes, format: "png")
        XCTAssertEqual(interlaced.bufferBytes, 300 * 200 * 3, "an interlaced PNG is held whole")
        let gif = try check(animatedGIF(width: 40, height: 30, frames: [.white, .black]), format: "gif")
        XCTAssertEqual(gif.bufferBytes, 40 * 30 * 4, "the GIF canvas")
        for sample in try FileManager.default.contentsOfDirectory(atPath: samplesDirectory) where sample.hasSuffix(".jpg") {
            XCTAssertNoThrow(try check(readBytes(samplesDirectory + "/" + sample), format: "jpeg"), sample)
        }
    }

    /// The same structures, told the truth, pass: the catalogue's lies are
    /// what is refused, not its way of writing files.
    func testHonestCraftedFilesPass() throws {
        let at = Hostile.afterIFD(9)
        let pixels = [UInt8](repeating: 0x80, count: 256)
        XCTAssertNoThrow(try check(Hostile.tiff(Hostile.greyEntries(dataAt: at), tail: pixels), format: "tiff"))
        XCTAssertNoThrow(try check(Hostile.gif(screen: 16, 16, frameAt: 15, 15), format: "gif"))
        XCTAssertNoThrow(try check(Hostile.webp(Hostile.vp8x(16, 16) + Hostile.vp8l(16, 16)), format: "webp"))
        XCTAssertNoThrow(try check(Hostile.heif(meta: Hostile.ispe(4000, 3000) + Hostile.iloc(offset: 0, length: 16)),
                                   format: "heif"))
        XCTAssertNoThrow(try check(Hostile.progressiveJPEG(4000, 3000), format: "jpeg"), "a 12 MP progressive JPEG")
    }

    /// The length of a chunk is held to the bytes left, to the byte.
    func testAPNGChunkMayEndExactlyAtTheEndOfTheFile() throws {
        let png = Array(hugeHeaderPNG(width: 16, height: 16).dropLast(12))  // no IEND
        XCTAssertNoThrow(try check(png, format: "png"))
        XCTAssertThrowsError(try check(Array(png.dropLast(1)), format: "png")) {
            XCTAssertTrue(($0 as? VipsError)?.message.contains("truncated png: chunk IDAT of 12 bytes") == true, "\($0)")
        }
    }

    /// PNG chunk headers are read through 64 KiB blocks: headers that
    /// straddle a block's end pass, and a lie two blocks in is found at its
    /// offset, as in the first block.
    func testPNGChunkHeadersAcrossBlocks() throws {
        // 4105 bytes a chunk: over 50 chunks, headers fall anywhere in a block.
        let idat = Hostile.pngChunk("IDAT", [UInt8](repeating: 7, count: 4093))
        let head = PNGStructure.signature + Hostile.ihdr(16, 16)
        let honest = head + (0..<50).flatMap { _ in idat } + Hostile.pngChunk("IEND", [])
        XCTAssertNoThrow(try check(honest, format: "png"))
        let liar = head.count + 39 * idat.count
        XCTAssertGreaterThan(liar, 2 << 16)
        var lying = honest
        lying.replaceSubrange(liar..<liar + 4, with: be32(1 << 20))
        XCTAssertThrowsError(try check(lying, format: "png")) {
            let message = ($0 as? VipsError)?.message ?? "\($0)"
            XCTAssertTrue(message.contains("truncated png: chunk IDAT of 1048576 bytes at offset \(liar)"), message)
        }
        var garbled = honest
        garbled[liar + 4] = 0
        XCTAssertThrowsError(try check(garbled, format: "png")) {
            let message = ($0 as? VipsError)?.message ?? "\($0)"
            XCTAssertTrue(message.contains("chunk type '?DAT' at offset \(liar) is not four letters"), message)
        }
        // Cut inside the last chunk header: no IEND, a header cut short.
        let cut = Array(honest.prefix(honest.count - 12 + 5))
        XCTAssertThrowsError(try check(cut, format: "png")) {
            let message = ($0 as? VipsError)?.message ?? "\($0)"
            XCTAssertTrue(message.contains("a chunk header cut short at offset \(honest.count - 12)"), message)
        }
    }

    /// Reading the structure never moves the descriptor's offset (libvips
    /// reads from it next).
    func testTheDescriptorOffsetIsLeftAlone() throws {
        let path = folder.file("a.png")
        try writeBytes(try Encoder.encode(PixelBuffer(width: 8, height: 8) { _, _ in .white }, suffix: ".png").bytes, to: path)
        try withDescriptor(path) { descriptor in
            lseek(descriptor, 3, SEEK_SET)
            try StructureCheck.check(descriptor: descriptor, format: "png")
            XCTAssertEqual(lseek(descriptor, 0, SEEK_CUR), 3)
        }
    }
}

/// JPEG XL's pre-check: the codestream's size header and the container's boxes.
final class JXLStructureTests: XCTestCase {
    private func check(_ bytes: [UInt8]) throws -> StructureCheck.Summary {
        let folder = try TemporaryDirectory()
        let path = folder.file("x.jxl")
        try writeBytes(bytes, to: path)
        return try withDescriptor(path) { try StructureCheck.check(descriptor: $0, maxPixels: 268_402_689) }
    }

    func testWhatLibvipsWritesPassesWithItsSize() throws {
        guard Vips.canSave(suffix: ".jxl") else { throw XCTSkip("no JPEG XL saver") }
        let picture = PixelBuffer(width: 300, height: 200) { x, y in RGB(red: UInt8(x % 256), green: UInt8(y), blue: 9) }
        let bytes = try Encoder.encode(picture, suffix: ".jxl").bytes
        XCTAssertEqual(try check(bytes).bufferBytes, 300 * 200 * 3)
        // The same codestream in a container.
        let box = [UInt8](repeating: 0, count: 4).enumerated().map { UInt8(truncatingIfNeeded: (bytes.count + 8) >> (24 - 8 * $0.offset)) }
        let container = JXLStructure.containerSignature + [0, 0, 0, 20] + Array("ftypjxl ".utf8) + [0, 0, 0, 0]
            + Array("jxl ".utf8) + box + Array("jxlc".utf8) + bytes
        XCTAssertEqual(try check(container).bufferBytes, 300 * 200 * 3)
        XCTAssertThrowsError(try check(container.dropLast(10))) { error in
            XCTAssertEqual((error as? VipsError)?.code, .load)
            XCTAssertTrue("\(error)".contains("box jxlc"), "\(error)")
        }
    }

    func testAHugeSizeHeaderIsTooLargeFromTwelveBytes() {
        // Not small, 30-bit height of all ones, ratio 1:1: 2^30 x 2^30.
        XCTAssertThrowsError(try check([0xFF, 0x0A, 0xFE, 0xFF, 0xFF, 0xFF, 0x03, 0, 0, 0, 0, 0])) { error in
            XCTAssertEqual((error as? VipsError)?.code, .tooLarge)
        }
    }
}
