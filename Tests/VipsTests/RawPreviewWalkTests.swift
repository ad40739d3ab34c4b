import CollageTestSupport
import FileFacts
import Media
import XCTest
@testable import Vips

/// Previews found by the file's own structure (`StructureCheck.rawLayout`),
/// where LibRaw does not know the camera: a CR3 built box by box (THMB,
/// PRVW, the full-size JPEG track; CMT1's orientation, CMT2's date), and
/// every preview of a DNG tried from the smallest that covers the tile,
/// the next when one fails to decode, never raw data that is all gone.
final class RawPreviewWalkTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let red = RGB(red: 210, green: 30, blue: 30), green = RGB(red: 40, green: 170, blue: 60)
    private let blue = RGB(red: 30, green: 50, blue: 200)

    override func setUpWithError() throws { folder = try TemporaryDirectory() }

    private func jpeg(_ width: Int, _ height: Int, _ colour: RGB) throws -> [UInt8] {
        try Encoder.encode(PixelBuffer(width: width, height: height, fill: colour), suffix: ".jpg").bytes
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = folder.file(name)
        try writeBytes(bytes, to: path)
        return path
    }

    private func tile(_ path: String, _ width: Int, _ height: Int) throws -> MediaTile {
        try withDescriptor(path) {
            try MediaFile.tile(descriptor: $0, width: width, height: height, background: .white,
                               header: try MediaFile.header(descriptor: $0))
        }
    }

    private func cr3() throws -> CR3File {
        var file = CR3File()
        file.thumbnail = try jpeg(160, 120, red)
        file.preview = try jpeg(480, 320, green)
        file.fullSize = try jpeg(800, 600, blue)
        file.date = "2023:07:08 09:10:11"
        return file
    }

    func testACR3sPreviewsAreFoundInItsBoxes() throws {
        let path = try write(try cr3().bytes, "IMG_0001.CR3")
        XCTAssertEqual(try withDescriptor(path) { try StructureCheck.content(descriptor: $0) }, .raw)
        let layout = try withDescriptor(path) { StructureCheck.rawLayout(descriptor: $0) }
        XCTAssertEqual(layout.previews.map { [$0.width, $0.height] }, [[160, 120], [480, 320], [800, 600]])
        XCTAssertEqual(layout.orientation, 1)
        XCTAssertEqual(layout.taken?.dayName, "2023-07-08")
        let header = try withDescriptor(path) { try MediaFile.header(descriptor: $0) }
        XCTAssertEqual([header.width, header.height], [800, 600], "the largest preview is the picture")
        XCTAssertEqual(header.dateTaken, "2023-07-08")
        // The smallest that covers the tile, each time.
        for (size, colour) in [((150, 100), red), ((400, 300), green), ((700, 500), blue)] {
            let made = try tile(path, size.0, size.1)
            XCTAssertEqual(made.source, "preview")
            XCTAssertColour(made.pixels.pixel(x: size.0 / 2, y: size.1 / 2), colour, tolerance: 8, "\(size)")
        }
        XCTAssertThrowsError(try tile(path, 900, 700)) { error in
            XCTAssertEqual((error as? VipsError)?.code, .load)
            XCTAssertTrue("\(error)".contains("no preview of at least 900x700 (the largest is 800x600)"), "\(error)")
            XCTAssertTrue("\(error)".contains("LibRaw cannot read it"), "the real reason: \(error)")
        }
    }

    func testACR3sOrientationTurnsItsPreview() throws {
        var file = try cr3()
        file.orientation = 6
        file.fullSize = try Encoder.encode(PixelBuffer(width: 800, height: 600) { x, _ in x < 400 ? self.red : self.blue },
                                           suffix: ".jpg").bytes
        let path = try write(file.bytes, "turned.cr3")
        let header = try withDescriptor(path) { try MediaFile.header(descriptor: $0) }
        XCTAssertEqual([header.displayedWidth, header.displayedHeight], [600, 800])
        let made = try tile(path, 450, 600)  // the PRVW, 320x480 upright, does not cover it
        XCTAssertColour(made.pixels.pixel(x: 225, y: 60), red, tolerance: 12, "the stored left half on top")
        XCTAssertColour(made.pixels.pixel(x: 225, y: 540), blue, tolerance: 12)
    }

    func testADamagedPreviewFallsBackToTheNextThatCovers() throws {
        var file = try cr3()
        let whole = try jpeg(480, 320, green)
        file.preview = Array(whole.prefix(whole.count / 2))  // its header intact, its data cut
        let made = try tile(try write(file.bytes, "cut.cr3"), 400, 300)
        XCTAssertEqual(made.source, "preview")
        XCTAssertColour(made.pixels.pixel(x: 200, y: 150), blue, tolerance: 8, "the full-size JPEG, next up")
    }

    /// Two previews, the larger one's data gone; the raw data gone too.
    func testRawDataThatIsAllGoneFailsNeverABlackTile() throws {
        var dng = DNGFile()
        let large = try jpeg(800, 600, blue)
        dng.preview = Array(large.prefix(large.count / 2))
        dng.secondPreview = try jpeg(400, 300, green)
        dng.zeroRaw = true
        let path = try write(dng.bytes, "gone.dng")
        let small = try tile(path, 300, 200)
        XCTAssertEqual(small.source, "preview")
        XCTAssertColour(small.pixels.pixel(x: 150, y: 100), green, tolerance: 8, "the good smaller preview")
        XCTAssertThrowsError(try tile(path, 500, 350)) { error in
            XCTAssertEqual((error as? VipsError)?.code, .load)
            XCTAssertTrue("\(error)".contains("the 800x600 preview"), "the damaged preview's reason: \(error)")
            XCTAssertTrue("\(error)".contains("develops into nothing"), "\(error)")
        }
    }
}

/// TIFF-based RAWs' maker notes and RAF's header, built byte by byte.
final class MakerNotePreviewTests: XCTestCase {
    private let green = RGB(red: 40, green: 170, blue: 60)

    private func layout(_ bytes: [UInt8]) throws -> (RawLayout, ContentKind) {
        let folder = try TemporaryDirectory()
        let path = folder.file("file.raw")
        try writeBytes(bytes, to: path)
        return try withDescriptor(path) { (StructureCheck.rawLayout(descriptor: $0), try StructureCheck.content(descriptor: $0)) }
    }

    /// A NEF's shape: IFD0 (CFA samples, Nikon's compression), its EXIF IFD
    /// whose MakerNote ("Nikon", a TIFF of its own) points to a preview IFD.
    func testANikonMakerNotesPreviewIsFound() throws {
        let preview = try Encoder.encode(PixelBuffer(width: 320, height: 240, fill: green), suffix: ".jpg").bytes
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] { le16(tag) + le16(type) + le32(count) + le32(value) }
        // The maker note: "Nikon\0", version, padding, then big-endian TIFF offsets from its own header.
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v & 0xFFFF) }
        var inner: [UInt8] = [0x4D, 0x4D, 0, 0x2A] + be32(8)
        inner += be16(1) + be16(0x11) + be16(4) + be32(1) + be32(26) + be32(0)  // IFD at 8: PreviewIFD at 26
        inner += be16(2) + be16(0x201) + be16(4) + be32(1) + be32(56) + be16(0x202) + be16(4) + be32(1) + be32(preview.count)
        inner += be32(0)  // preview IFD ends at 56
        let note = Array("Nikon".utf8) + [0, 2, 0x10, 0, 0] + inner + preview
        // The file: header, IFD0 at 8 (5 entries), EXIF IFD, the note, the raw strip.
        let exifAt = 8 + 2 + 5 * 12 + 4, noteAt = exifAt + 2 + 12 + 4, stripAt = noteAt + note.count
        var file: [UInt8] = [0x49, 0x49, 0x2A, 0] + le32(8) + le16(5)
        file += entry(259, 3, 1, 34713) + entry(262, 3, 1, 32803) + entry(273, 4, 1, stripAt) + entry(279, 4, 1, 64)
        file += entry(34665, 4, 1, exifAt) + le32(0)
        file += le16(1) + entry(37500, 7, note.count, noteAt) + le32(0) + note + [UInt8](repeating: 1, count: 64)
        let (found, kind) = try layout(file)
        XCTAssertEqual(kind, .raw)
        XCTAssertEqual(found.previews.map { [$0.width, $0.height] }, [[320, 240]])
        XCTAssertEqual(found.previews.first?.offset, noteAt + 10 + 56)
    }

    func testARAFsEmbeddedJPEGIsFoundAtItsHeaderOffset() throws {
        let preview = try Encoder.encode(PixelBuffer(width: 160, height: 120, fill: green), suffix: ".jpg").bytes
        var file = Array("FUJIFILMCCD-RAW 0201FF129502".utf8)
        file += [UInt8](repeating: 0, count: 84 - file.count)
        file += [0, 0, 0, 100] + [UInt8(preview.count >> 24), UInt8(preview.count >> 16 & 0xFF), UInt8(preview.count >> 8 & 0xFF),
                                  UInt8(preview.count & 0xFF)]
        file += [UInt8](repeating: 0, count: 100 - file.count) + preview
        let (found, kind) = try layout(file)
        XCTAssertEqual(kind, .raw)
        XCTAssertEqual(found.previews, [EmbeddedJPEG(offset: 100, length: preview.count, width: 160, height: 120)])
    }
}
