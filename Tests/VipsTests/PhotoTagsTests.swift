import CollageTestSupport
import FileFacts
import Foundation
import Media
import XCTest
@testable import Vips

/// A photo's rating and label, read with its header (no pixel decoded):
/// from its own XMP packet, as ExifTool writes it into a JPEG, or from a
/// sidecar's bytes, which win over the embedded packet.
final class PhotoTagsTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// A small JPEG with ExifTool's `arguments` applied (`-XMP:Rating=5`).
    private func photo(_ name: String, _ arguments: [String]) throws -> String {
        let path = folder.file(name)
        let pixels = PixelBuffer(width: 64, height: 48, fill: RGB(red: 90, green: 120, blue: 150))
        try writeBytes(Encoder.encode(pixels, suffix: ".jpg").bytes, to: path)
        if !arguments.isEmpty { try TestMedia.run("exiftool", ["-q", "-overwrite_original"] + arguments + [path]) }
        return path
    }

    func testTheEmbeddedRatingAndLabelAreRead() throws {
        let rated = try header(of: try photo("rated.jpg", ["-XMP:Rating=5", "-XMP:Label=Red"]))
        XCTAssertEqual(rated.rating, 5)
        XCTAssertEqual(rated.label, "Red")
        XCTAssertNil(rated.xmpProblem)
        let rejected = try header(of: try photo("rejected.jpg", ["-XMP:Rating=-1"]))
        XCTAssertEqual(rejected.rating, -1)
        XCTAssertNil(rejected.label)
        // XMP's 0 is "unrated": no rating, as a photo without XMP.
        XCTAssertNil(try header(of: try photo("zero.jpg", ["-XMP:Rating=0", "-XMP:Label=Green"])).rating)
        let plain = try header(of: try photo("plain.jpg", []))
        XCTAssertNil(plain.rating)
        XCTAssertNil(plain.label)
        XCTAssertNil(plain.xmpProblem)
    }

    func testAnEmbeddedRatingOutOfRangeIsNotUsed() throws {
        let lying = try header(of: try photo("lying.jpg", ["-XMP:Rating=9", "-XMP:Label=Blue"]))
        XCTAssertNil(lying.rating)
        XCTAssertNil(lying.label, "nothing of a packet that lies is taken")
        XCTAssertEqual(lying.xmpProblem, "a rating of '9', not -1 to 5")
    }

    func testASidecarWinsOverTheEmbeddedPacket() throws {
        let path = try photo("both.jpg", ["-XMP:Rating=2", "-XMP:Label=Blue"])
        // ExifTool's sidecar of another photo's tags, as digiKam and darktable write them.
        let source = try photo("source.jpg", ["-XMP:Rating=4"])
        try TestMedia.run("exiftool", ["-q", "-o", folder.file("source.xmp"), source])
        var header = try header(of: path)
        XCTAssertNil(header.take(sidecar: try readBytes(folder.file("source.xmp"))))
        XCTAssertEqual(header.rating, 4)
        XCTAssertNil(header.label, "the sidecar has no label: the embedded one is not the truth")
    }

    func testASidecarThatCannotBeUsedChangesNothing() throws {
        let path = try photo("kept.jpg", ["-XMP:Rating=3", "-XMP:Label=Yellow"])
        let xmp = { (rating: String) in
            Array("""
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(rating)"/>
                </rdf:RDF></x:xmpmeta>
                """.utf8)
        }
        for (bytes, problem) in [(Array("not XML at all\n".utf8), "not XML"), (xmp("9"), "a rating of '9', not -1 to 5"),
                                 (xmp("many"), "a rating of 'many', not -1 to 5"), (Array(" \n".utf8), "an empty file"),
                                 ([UInt8](repeating: 0x3C, count: ImageHeader.sidecarLimit + 1), "more than")] {
            var header = try header(of: path)
            let said = header.take(sidecar: bytes)
            XCTAssertTrue(said?.contains(problem) == true, "\(said ?? "nil") should say \(problem)")
            XCTAssertEqual(header.rating, 3)
            XCTAssertEqual(header.label, "Yellow")
        }
        var header = try header(of: path)
        XCTAssertNil(header.take(sidecar: xmp("1.5")), "a fractional rating counts its whole stars")
        XCTAssertEqual(header.rating, 1)
    }

    func testARawsOwnXMPIsRead() throws {
        var dng = DNGFile()
        dng.preview = try Encoder.encode(PixelBuffer(width: 320, height: 200, fill: .white), suffix: ".jpg").bytes
        let path = folder.file("rated.dng")
        try writeBytes(dng.bytes, to: path)
        let unrated = try withDescriptor(path) { try MediaFile.header(descriptor: $0) }
        XCTAssertNil(unrated.rating)
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-XMP:Rating=4", "-XMP:Label=Purple", path])
        let rated = try withDescriptor(path) { try MediaFile.header(descriptor: $0) }
        XCTAssertEqual(rated.format, "raw")
        XCTAssertEqual(rated.rating, 4)
        XCTAssertEqual(rated.label, "Purple")
    }
}
