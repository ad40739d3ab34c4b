import CollageTestSupport
import Foundation
import Vips
import XCTest

/// `--crop faces`: the tile keeps the faces the photo's XMP marks (MWG
/// regions, written here by ExifTool as photo managers write them), in the
/// photo as the viewer sees it; without them, attention decides.
final class FaceCropTests: CLITestCase {
    static let grey = RGB(red: 60, green: 60, blue: 60)

    /// A grey JPEG of `width` x `height` with a white square of `side` at
    /// (x, y), as stored.
    func photo(_ name: String, width: Int, height: Int, face: (x: Int, y: Int), side: Int = 100) throws {
        var picture = PixelBuffer(width: width, height: height, fill: Self.grey)
        picture.place(PixelBuffer(width: side, height: side, fill: .white), x: face.x, y: face.y)
        write(try Encoder.encode(picture, suffix: ".jpg[Q=95]").bytes, to: name)
    }

    /// ExifTool's MWG regions: each (centre x, centre y, w, h), normalised.
    func regions(_ name: String, _ areas: [(Double, Double, Double, Double)], type: String = "Face",
                 orientation: Int? = nil) throws {
        let list = areas.map { "{Area={X=\($0.0),Y=\($0.1),W=\($0.2),H=\($0.3),Unit=normalized},Type=\(type),Name=Ann}" }
        var arguments = ["-q", "-overwrite_original",
                         "-XMP-mwg-rs:RegionInfo={AppliedToDimensions={W=1200,H=400,Unit=pixel},RegionList=[\(list.joined(separator: ","))]}"]
        if let orientation { arguments += ["-Orientation#=\(orientation)"] }
        try TestMedia.run("exiftool", arguments + [path(name)])
    }

    /// One 400x400 tile of `name` with `--crop crop`: its pixels and its `placed` event.
    func tile(_ name: String, crop: String = "faces", extra: [String] = []) throws -> (PixelBuffer, [String: Any], ProcessResult)? {
        let result = try collage([name, "--crop", crop, "--size", "400x400", "-o", "tile.png", "--json"] + extra)
        XCTAssertEqual(result.status, 0, result.stderrText)
        guard let placed = events(jsonEvents(result), "placed").first, let pixels = decoded("tile.png") else {
            XCTFail("no tile")
            return nil
        }
        return (pixels, placed, result)
    }

    /// Whether the white face shows at (x, y) of the tile.
    func isFace(_ pixels: PixelBuffer, _ x: Int, _ y: Int) -> Bool { pixels.pixel(x: x, y: y).red > 200 }

    func testTheFaceNearTheEdgeIsKept() throws {
        // A face at the right of a wide photo: the centre crop loses it.
        try photo("wide.jpg", width: 1200, height: 400, face: (1000, 150))
        try regions("wide.jpg", [(0.875, 0.5, 100.0 / 1200, 0.25)])
        let (centre, centrePlaced, _) = try XCTUnwrap(try tile("wide.jpg", crop: "centre"))
        XCTAssertEqual(centrePlaced["focus"] as? String, "centre")
        XCTAssertFalse((0..<400).contains { isFace(centre, $0, 200) })
        let (faces, placed, _) = try XCTUnwrap(try tile("wide.jpg"))
        XCTAssertEqual(placed["focus"] as? String, "faces")
        // The window is centred on the face where the photo allows: its right 400 pixels.
        XCTAssertTrue(isFace(faces, 250, 200))
        XCTAssertTrue(isFace(faces, 205, 155) && isFace(faces, 295, 245), "the whole face is in the tile")
        XCTAssertFalse(isFace(faces, 190, 200))
    }

    func testTwoFacesThatFitAreBothKept() throws {
        var picture = PixelBuffer(width: 1200, height: 400, fill: Self.grey)
        picture.place(PixelBuffer(width: 60, height: 60, fill: .white), x: 120, y: 170)
        picture.place(PixelBuffer(width: 60, height: 60, fill: .white), x: 420, y: 170)
        write(try Encoder.encode(picture, suffix: ".jpg[Q=95]").bytes, to: "two.jpg")
        try regions("two.jpg", [(0.125, 0.5, 0.05, 0.15), (0.375, 0.5, 0.05, 0.15)])
        let (pixels, placed, _) = try XCTUnwrap(try tile("two.jpg"))
        XCTAssertEqual(placed["focus"] as? String, "faces")
        let columns = (0..<400).filter { isFace(pixels, $0, 200) }
        XCTAssertEqual(columns.count, 120, "both faces, whole: \(columns)")
    }

    /// Regions are given for the image as stored; the viewer sees it turned.
    func testRotatedPhotosHonourTheirOrientation() throws {
        // Stored 400x1200, shown 1200x400: the face ends up at the right of
        // the shown photo, at stored rows 100-200 (orientation 6) or
        // 1000-1100 (orientation 8), columns 150-250.
        for (orientation, storedY) in [(6, 100), (8, 1000)] {
            let name = "turned\(orientation).jpg"
            try photo(name, width: 400, height: 1200, face: (150, storedY))
            try regions(name, [(0.5, (Double(storedY) + 50) / 1200, 0.25, 100.0 / 1200)], orientation: orientation)
            let (pixels, placed, _) = try XCTUnwrap(try tile(name))
            XCTAssertEqual(placed["focus"] as? String, "faces", "orientation \(orientation)")
            XCTAssertTrue(isFace(pixels, 250, 200), "orientation \(orientation): the face is in the tile")
            XCTAssertFalse(isFace(pixels, 100, 200), "orientation \(orientation)")
        }
    }

    func testWithoutFacesAttentionDecides() throws {
        try photo("plain.jpg", width: 1200, height: 400, face: (1000, 150))
        let (faces, placed, _) = try XCTUnwrap(try tile("plain.jpg"))
        XCTAssertEqual(placed["focus"] as? String, "attention")
        let (attention, attentionPlaced, _) = try XCTUnwrap(try tile("plain.jpg", crop: "attention"))
        XCTAssertEqual(attentionPlaced["focus"] as? String, "attention")
        XCTAssertEqual(faces.withUnsafeBytes { Array($0) }, attention.withUnsafeBytes { Array($0) })
        // A pet is not a face.
        try regions("plain.jpg", [(0.125, 0.5, 0.1, 0.25)], type: "Pet")
        XCTAssertEqual(try XCTUnwrap(try tile("plain.jpg")).1["focus"] as? String, "attention")
    }

    /// XMP that is not XML, regions outside the image or of zero size:
    /// the photo is placed (as attention places it), and -v says why its
    /// regions were not used, in one line.
    func testBadXMPIsIgnoredWithOneLineUnderVerbose() throws {
        try photo("broken.jpg", width: 1200, height: 400, face: (1000, 150))
        var bytes = try XCTUnwrap(contents("broken.jpg"))
        let packet = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:RDF><mwg-rs:Regions></rdf:RDF>".utf8)
        let length = packet.count + 2
        bytes.insert(contentsOf: [0xff, 0xe1, UInt8(length >> 8), UInt8(length & 0xff)] + packet, at: 2)
        write(bytes, to: "broken.jpg")
        try photo("outside.jpg", width: 1200, height: 400, face: (1000, 150))
        try regions("outside.jpg", [(1.5, 0.5, 0.1, 0.25), (0.5, 0.5, 0, 0.25)])
        for (name, reason) in [("broken.jpg", "not XML"), ("outside.jpg", "outside the image")] {
            let (_, placed, json) = try XCTUnwrap(try tile(name))
            XCTAssertEqual(placed["focus"] as? String, "attention", name)
            let notices = events(jsonEvents(json), "notice").compactMap { $0["message"] as? String }
            XCTAssertTrue(notices.contains { $0.contains(reason) }, "\(name): \(notices)")
            let quiet = try collage([name, "--crop", "faces", "--size", "400x400", "-o", "q.png"])
            XCTAssertEqual(quiet.status, 0)
            XCTAssertEqual(quiet.stderrText, "", "off a terminal, a good run says nothing")
            let verbose = try collage([name, "--crop", "faces", "--size", "400x400", "-o", "v.png", "-v"])
            XCTAssertEqual(verbose.status, 0)
            let lines = verbose.stderrText.split(separator: "\n").filter { $0.contains("XMP face regions ignored") }
            XCTAssertEqual(lines.count, 1, verbose.stderrText)
            XCTAssertTrue(lines.first?.contains(reason) == true, verbose.stderrText)
        }
    }

    /// Every placed image says what decided its crop.
    func testFocusForEveryCropMode() throws {
        writeImage(.black, to: "a.png", width: 300, height: 200)
        for mode in ["centre", "center", "attention", "entropy"] {
            let (_, placed, _) = try XCTUnwrap(try tile("a.png", crop: mode))
            XCTAssertEqual(placed["focus"] as? String, mode == "center" ? "centre" : mode)
        }
    }
}
