import CollageTestSupport
import FileFacts
import Foundation
import Media
import XCTest
@testable import Vips

/// The camera and its settings, read with the header: from EXIF (libvips'
/// `exif-ifd*` fields, written here by ExifTool) or a RAW photo's own
/// (LibRaw), and said as a proof sheet's caption says them.
final class CameraFactsTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private let settings = ["-LensModel=RF24-70mm F2.8 L IS USM", "-FocalLength=35", "-FNumber=2.8",
                            "-ExposureTime=1/250", "-ISO=400"]

    /// A small JPEG with ExifTool's `arguments` applied.
    private func photo(_ arguments: [String]) throws -> ImageHeader {
        let path = folder.file("photo-\(arguments.count).jpg")
        let pixels = PixelBuffer(width: 64, height: 48, fill: RGB(red: 90, green: 120, blue: 150))
        try writeBytes(Encoder.encode(pixels, suffix: ".jpg").bytes, to: path)
        if !arguments.isEmpty { try TestMedia.run("exiftool", ["-q", "-overwrite_original"] + arguments + [path]) }
        return try header(of: path)
    }

    private func texts(_ facts: CameraFacts?) -> [String] {
        guard let facts else { return [] }
        return [facts.cameraText, facts.lensText, facts.focalText, facts.apertureText, facts.shutterText, facts.isoText]
    }

    func testTheCameraFieldsFromEXIF() throws {
        XCTAssertEqual(texts(try photo(["-Make=Canon", "-Model=Canon EOS R6"] + settings).camera),
                       ["Canon EOS R6", "RF24-70mm F2.8 L IS USM", "35 mm", "f/2.8", "1/250 s", "ISO 400"])
        XCTAssertEqual(texts(try photo(["-Make=NIKON CORPORATION", "-Model=NIKON D850", "-ExposureTime=2"]).camera),
                       ["NIKON D850", "", "", "", "2 s", ""])
        XCTAssertEqual(texts(try photo(["-Make=Apple", "-Model=iPhone 15 Pro", "-FocalLength=6.86", "-FNumber=1.78",
                                        "-ExposureTime=1/2", "-ISO=1000"]).camera),
                       ["Apple iPhone 15 Pro", "", "6.9 mm", "f/1.8", "1/2 s", "ISO 1000"])
        XCTAssertNil(try photo([]).camera, "no EXIF, no camera")
    }

    func testARawsOwnCameraFields() throws {
        var dng = DNGFile()
        dng.preview = try Encoder.encode(PixelBuffer(width: 320, height: 200, fill: .white), suffix: ".jpg").bytes
        let path = folder.file("photo.dng")
        try writeBytes(dng.bytes, to: path)
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-LensModel=XF50mmF2 R WR", "-FocalLength=50", "-FNumber=8",
                                       "-ExposureTime=1/1000", "-ISO=100", path])
        let header = try withDescriptor(path) { try MediaFile.header(descriptor: $0) }
        XCTAssertEqual(header.format, "raw")
        XCTAssertEqual(texts(header.camera), ["Collage Test DNG", "XF50mmF2 R WR", "50 mm", "f/8", "1/1000 s", "ISO 100"])
    }

    func testCameraTextSaysTheMakeOnce() {
        let cases: [(String?, String?, String)] = [
            ("Canon", "Canon EOS R6", "Canon EOS R6"), ("NIKON CORPORATION", "NIKON D850", "NIKON D850"),
            ("Apple", "iPhone 15 Pro", "Apple iPhone 15 Pro"), ("OLYMPUS IMAGING CORP.", "E-M5", "OLYMPUS E-M5"),
            ("EASTMAN KODAK COMPANY", "KODAK EASYSHARE C813", "KODAK EASYSHARE C813"),
            ("FUJIFILM", "X-T4", "FUJIFILM X-T4"), ("  SONY ", " ILCE-7M3\0", "SONY ILCE-7M3"),
            (nil, "Pixel 8", "Pixel 8"), ("Google", nil, "Google"), (nil, nil, ""), ("   ", "", ""),
        ]
        for (make, model, text) in cases {
            XCTAssertEqual(CameraFacts(make: make, model: model).cameraText, text, "\(make ?? "nil") / \(model ?? "nil")")
        }
    }

    func testSettingsAreSaidAsCamerasSayThem() {
        let shutter = { (seconds: Double) in CameraFacts(exposure: seconds).shutterText }
        XCTAssertEqual([1.0 / 250, 1.0 / 8000, 0.5, 0.4, 1.0 / 3, 1, 1.3, 2, 30].map(shutter),
                       ["1/250 s", "1/8000 s", "1/2 s", "1/2.5 s", "1/3 s", "1 s", "1.3 s", "2 s", "30 s"])
        XCTAssertEqual([2.8, 8, 1.78, 22, 5.6].map { CameraFacts(aperture: $0).apertureText },
                       ["f/2.8", "f/8", "f/1.8", "f/22", "f/5.6"])
        XCTAssertEqual([35, 6.86, 200].map { CameraFacts(focalLength: $0).focalText }, ["35 mm", "6.9 mm", "200 mm"])
        XCTAssertEqual(CameraFacts(iso: 400).isoText, "ISO 400")
        // What no camera says is no value.
        let nonsense = CameraFacts(focalLength: 0, aperture: -1, exposure: .infinity, iso: 0)
        XCTAssertTrue(nonsense.isEmpty)
        XCTAssertEqual([nonsense.focalText, nonsense.apertureText, nonsense.shutterText, nonsense.isoText], ["", "", "", ""])
    }

    func testLibvipsStringsAreReadByTheirValueNotTheirProse() {
        XCTAssertEqual(CameraFacts.number(exif: "35/1 (35.0 mm, Rational, 1 components, 8 bytes)"), 35)
        XCTAssertEqual(CameraFacts.number(exif: "14/5 (f/2.8, Rational, 1 components, 8 bytes)"), 2.8)
        XCTAssertEqual(CameraFacts.number(exif: "1/250 (1/250 sec., Rational, 1 components, 8 bytes)"), 1.0 / 250)
        XCTAssertEqual(CameraFacts.number(exif: "400 (400, Short, 1 components, 2 bytes)"), 400)
        for bad in ["0/0 (nan, Rational, 1 components, 8 bytes)", "", "abc (abc, ASCII)", "1/2/3", "1/x"] {
            XCTAssertNil(CameraFacts.number(exif: bad), bad)
        }
        XCTAssertEqual(CameraFacts.string(exif: "Canon EOS R6 (Canon EOS R6, ASCII, 13 components, 13 bytes)"), "Canon EOS R6")
        XCTAssertEqual(CameraFacts.string(exif: "EF 50 (II) (EF 50 (II), ASCII, 11 components, 11 bytes)"), "EF 50 (II)")
        XCTAssertEqual(CameraFacts.string(exif: "no description"), "no description")
    }
}
