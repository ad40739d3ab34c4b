import FileFacts
import Foundation
import CollageTestSupport
import Media
import Raw
import XCTest
@testable import Vips

/// RAW photos through the `Media` door: DNGs written here (`DNGFile`), read
/// by LibRaw. The tile comes from the preview when it covers the tile, else
/// from the raw data demosaiced; the orientation and date are the RAW's.
final class RawPicturesTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let green = RGB(red: 40, green: 170, blue: 60)

    override func setUpWithError() throws { folder = try TemporaryDirectory() }

    /// A flat JPEG of `colour`.
    private func jpeg(_ width: Int, _ height: Int, _ colour: RGB) throws -> [UInt8] {
        try Encoder.encode(PixelBuffer(width: width, height: height, fill: colour), suffix: ".jpg").bytes
    }

    private func write(_ dng: DNGFile, _ name: String = "photo.dng") throws -> String {
        let path = folder.file(name)
        try writeBytes(dng.bytes, to: path)
        return path
    }

    private func header(_ path: String, raw: RawMode = .preview) throws -> ImageHeader {
        try withDescriptor(path) { try MediaFile.header(descriptor: $0, options: MediaOptions(raw: raw)) }
    }

    private func tile(_ path: String, _ width: Int, _ height: Int, raw: RawMode = .preview) throws -> MediaTile {
        let header = try header(path, raw: raw)
        return try withDescriptor(path) {
            try MediaFile.tile(descriptor: $0, width: width, height: height, background: .white, header: header)
        }
    }

    func testABayerDNGIsRawContentThatLibvipsNeverDraws() throws {
        let path = try write(DNGFile())
        XCTAssertEqual(try withDescriptor(path) { try StructureCheck.content(descriptor: $0) }, .raw)
        XCTAssertThrowsError(try withDescriptor(path) { try ImageFile.header(descriptor: $0) }) { error in
            XCTAssertEqual((error as? VipsError)?.code, .unsupported, "not libvips' TIFF loader: \(error)")
        }
        let plain = folder.file("plain.tif")
        try writeImage(PixelBuffer(width: 20, height: 10, fill: green), suffix: ".tif", to: plain)
        XCTAssertEqual(try withDescriptor(plain) { try StructureCheck.content(descriptor: $0) }, .image("tiff"))
    }

    func testTheHeaderIsTheRawsOwn() throws {
        var dng = DNGFile()
        dng.orientation = 6
        dng.date = "2024:05:06 07:08:09"
        dng.preview = try jpeg(320, 200, green)
        let header = try header(try write(dng))
        XCTAssertEqual(header.format, "raw")
        XCTAssertEqual([header.width, header.height, header.orientation], [600, 400, 6])
        XCTAssertEqual([header.displayedWidth, header.displayedHeight], [400, 600], "LibRaw's flip: portrait")
        XCTAssertEqual(header.dateTaken, "2024-05-06")
        guard case .raw(let facts)? = header.media else { return XCTFail("no RAW facts") }
        XCTAssertEqual([facts.previewWidth, facts.previewHeight], [320, 200])
        XCTAssertTrue(facts.hasRawData)
        XCTAssertEqual(facts.rawBytes, 600 * 400 * 2)
    }

    func testAPreviewThatCoversTheTileIsUsed() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(320, 200, green)
        let made = try tile(try write(dng), 160, 100)
        XCTAssertEqual(made.source, "preview")
        XCTAssertTile(made.pixels, width: 160, height: 100)
        XCTAssertColour(made.pixels.pixel(x: 80, y: 50), green, tolerance: 6, "the preview's colour")
        XCTAssertColour(made.pixels.pixel(x: 140, y: 50), green, tolerance: 6, "not the scene's white half")
    }

    /// A preview that carries an ICC profile (a camera set to Adobe RGB) is
    /// converted from it to sRGB, as any photo is.
    func testAPreviewWithAProfileIsColourManaged() throws {
        let red = RGB(red: 200, green: 30, blue: 30)
        let plain = folder.file("red.png"), adobe = folder.file("adobe.jpg")
        try writeBytes(try Encoder.encode(PixelBuffer(width: 320, height: 200, fill: red), suffix: ".png[strip]").bytes,
                       to: plain)
        let convert = Process()
        convert.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        convert.arguments = ["icc_transform", plain, adobe + "[Q=98]", "/usr/share/color/icc/colord/AdobeRGB1998.icc",
                             "--input-profile", "srgb"]
        try convert.run()
        convert.waitUntilExit()
        XCTAssertEqual(convert.terminationStatus, 0)
        var dng = DNGFile()
        dng.preview = try readBytes(adobe)
        let made = try tile(try write(dng), 160, 100)
        XCTAssertEqual(made.source, "preview")
        // Read as sRGB, the Adobe RGB red would be about 171,35,35.
        XCTAssertColour(made.pixels.pixel(x: 80, y: 50), red, tolerance: 4, "the preview's colour, managed")
    }

    func testASmallerPreviewIsNeverEnlargedTheRawDataIs() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(160, 100, green)
        let half = try tile(try write(dng), 300, 200)
        XCTAssertEqual(half.source, "raw", "160x100 does not cover 300x200; half size (300x200) does")
        XCTAssertColour(half.pixels.pixel(x: 60, y: 100), dng.colour, tolerance: 24, "the scene's left half")
        XCTAssertColour(half.pixels.pixel(x: 240, y: 100), .white, tolerance: 8, "the scene's right half")
        let full = try tile(folder.file("photo.dng"), 500, 300)
        XCTAssertEqual(full.source, "raw")
        XCTAssertColour(full.pixels.pixel(x: 100, y: 150), dng.colour, tolerance: 24)
    }

    func testRawFullAlwaysDemosaics() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(320, 200, green)
        let made = try tile(try write(dng), 160, 100, raw: .full)
        XCTAssertEqual(made.source, "raw")
        XCTAssertColour(made.pixels.pixel(x: 30, y: 50), dng.colour, tolerance: 24)
    }

    func testTheRawsOrientationTurnsBothSources() throws {
        var dng = DNGFile()
        dng.orientation = 6  // a quarter turn clockwise: the stored left half is on top
        let raw = try tile(try write(dng), 200, 300)
        XCTAssertEqual(raw.source, "raw")
        XCTAssertColour(raw.pixels.pixel(x: 100, y: 60), dng.colour, tolerance: 24, "top: the left half")
        XCTAssertColour(raw.pixels.pixel(x: 100, y: 240), .white, tolerance: 8, "bottom: the right half")
        // A preview stored as the sensor saw it: red left, blue right.
        dng.preview = try Encoder.encode(PixelBuffer(width: 600, height: 400) { x, _ in
            x < 300 ? RGB(red: 220, green: 20, blue: 20) : RGB(red: 20, green: 20, blue: 220)
        }, suffix: ".jpg").bytes
        let preview = try tile(try write(dng, "turned.dng"), 200, 300)
        XCTAssertEqual(preview.source, "preview")
        XCTAssertColour(preview.pixels.pixel(x: 100, y: 40), RGB(red: 220, green: 20, blue: 20), tolerance: 12)
        XCTAssertColour(preview.pixels.pixel(x: 100, y: 260), RGB(red: 20, green: 20, blue: 220), tolerance: 12)
    }

    func testAPreviewWhoseClaimLiesIsMeasuredByItsFrameHeader() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(160, 100, green)
        dng.previewClaim = (4000, 3000)
        let header = try header(try write(dng))
        guard case .raw(let facts)? = header.media else { return XCTFail("no RAW facts") }
        XCTAssertEqual([facts.previewWidth, facts.previewHeight], [160, 100])
        XCTAssertEqual(header.rawSource(forTile: 300, 200), .half)
    }

    func testAPreviewThatIsNotAJPEGIsNoPreview() throws {
        var dng = DNGFile()
        dng.preview = Array("not a jpeg at all, just text".utf8) + [UInt8](repeating: 7, count: 100)
        dng.previewClaim = (800, 600)
        let path = try write(dng)
        guard case .raw(let facts)? = try header(path).media else { return XCTFail("no RAW facts") }
        XCTAssertEqual(facts.previewWidth, 0, "checked at the header: not a JPEG")
        XCTAssertEqual(try tile(path, 160, 100).source, "raw")
    }

    func testTooSmallAPreviewAndNoDecodableRawDataFailsSayingSo() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(160, 100, green)
        let bytes = dng.bytes
        let path = folder.file("cut.dng")
        try writeBytes(Array(bytes.prefix(bytes.count - 200 * 600)), to: path)
        XCTAssertEqual(try tile(path, 160, 100).source, "preview", "the preview covers this tile")
        XCTAssertThrowsError(try tile(path, 320, 200)) { error in
            XCTAssertEqual((error as? VipsError)?.code, .load)
            XCTAssertTrue("\(error)".contains("smaller than the 320x200 tile"), "\(error)")
            XCTAssertTrue("\(error)".contains("truncated raw data"), "\(error)")
        }
    }

    /// LibRaw does not read a DNG without raw data; its preview, found in
    /// its structure, is the picture; with `--raw full` it fails, saying why.
    func testADNGWithoutRawDataGivesItsPreview() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(160, 100, green)
        dng.rawData = false
        let path = try write(dng)
        let header = try header(path)
        XCTAssertEqual([header.width, header.height], [160, 100])
        let made = try tile(path, 160, 100)
        XCTAssertEqual(made.source, "preview")
        XCTAssertColour(made.pixels.pixel(x: 80, y: 50), green, tolerance: 6)
        XCTAssertThrowsError(try self.header(path, raw: .full)) { error in
            XCTAssertEqual((error as? VipsError)?.code, .load, "failed, not skipped")
            XCTAssertTrue("\(error)".contains("LibRaw cannot read it"), "\(error)")
        }
    }

    func testTruncatedRawDataFails() throws {
        let bytes = DNGFile().bytes
        let path = folder.file("cut.dng")
        try writeBytes(Array(bytes.prefix(bytes.count - 200 * 600)), to: path)
        XCTAssertThrowsError(try tile(path, 300, 200)) { error in
            XCTAssertTrue("\(error)".contains("truncated") || "\(error)".contains("raw data"), "\(error)")
        }
    }

    func testALoopingIFDChainIsRefusedBeforeLibRawReadsIt() throws {
        var dng = DNGFile()
        dng.loop = true
        XCTAssertThrowsError(try header(try write(dng))) { error in
            XCTAssertTrue("\(error)".contains("loops"), "\(error)")
        }
    }

    func testLibRawReadsThroughABoundedStream() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(160, 100, green)
        let bytes = dng.bytes
        let inspection = RawFile.inspect(bytes: bytes, maxMemory: 64 << 20)
        XCTAssertNil(inspection.error)
        XCTAssertEqual(inspection.info?.width, 600)
        XCTAssertEqual(inspection.preview.map { DNGFile.jpegSize($0)?.width }, 160)
        XCTAssertLessThanOrEqual(inspection.bytesRead, UInt64(4 * bytes.count + (64 << 20)))
        XCTAssertNotNil(RawFile.inspect(bytes: Array(bytes.prefix(40)), maxMemory: 64 << 20).error)
    }

    /// The fuzzing entry point on 300 mutations of a DNG (a fixed seed):
    /// every one returns, with a result or LibRaw's reason, and reads within the bound.
    func testMutatedDNGsReturnFromTheFuzzEntryPoint() throws {
        var dng = DNGFile()
        dng.width = 64
        dng.height = 48
        dng.preview = try jpeg(80, 60, green)
        let seed = dng.bytes
        var state: UInt64 = 0xC011_A6E5
        func next() -> Int {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
        for round in 0..<300 {
            var bytes = seed
            for _ in 0..<(1 + next() % 8) {
                let at = next() % min(bytes.count, round % 2 == 0 ? 1024 : bytes.count)
                bytes[at] = UInt8(truncatingIfNeeded: next())
            }
            if round % 10 == 0 { bytes = Array(bytes.prefix(next() % bytes.count)) }
            let inspection = RawFile.inspect(bytes: bytes, maxMemory: 64 << 20, develop: true)
            XCTAssertLessThanOrEqual(inspection.bytesRead, UInt64(4 * bytes.count + (64 << 20)), "round \(round)")
        }
    }
}

