import Foundation
import XCTest
@testable import CollageKit
@testable import Vips

final class OutputNamingTests: XCTestCase {
    private func name(_ path: String, _ sheet: Int, sheets: Bool = true) -> String {
        OutputNaming(path: PathName(path), sheets: sheets).path(forSheet: sheet).description
    }

    func testWithoutSheetsThePathItself() {
        XCTAssertEqual(name("out/collage.jpg", 1, sheets: false), "out/collage.jpg")
        XCTAssertEqual(name("sheet-{n}.png", 3, sheets: false), "sheet-{n}.png")
    }

    func testPlaceholderIsTheZeroPaddedNumber() {
        XCTAssertEqual(name("sheet-{n}.png", 1), "sheet-0001.png")
        XCTAssertEqual(name("out/{n}.jpg", 12), "out/0012.jpg")
        XCTAssertEqual(name("out/{n}/x.jpg", 345), "out/0345/x.jpg", "in a folder name too")
        XCTAssertEqual(name("s{n}.png", 9999), "s9999.png")
        XCTAssertEqual(name("s{n}.png", 12345), "s12345.png", "wider numbers are not cut")
    }

    func testWithoutPlaceholderTheNumberGoesBeforeTheExtension() {
        XCTAssertEqual(name("collage.jpg", 1), "collage-0001.jpg")
        XCTAssertEqual(name("out/collage.jpg", 2), "out/collage-0002.jpg")
        XCTAssertEqual(name("a.b.c.png", 3), "a.b.c-0003.png", "the last dot")
    }

    func testNoExtension() {
        XCTAssertEqual(name("collage", 1), "collage-0001")
        XCTAssertEqual(name("dir.d/collage", 4), "dir.d/collage-0004", "a dot in the folder is not an extension")
        XCTAssertEqual(name(".hidden", 5), ".hidden-0005", "a leading dot is not an extension")
    }

    func testBytesAreKept() {
        let path = PathName(bytes: [0xFF, 0x2F] + Array("x.jpg".utf8))  // "\xff/x.jpg"
        XCTAssertEqual(OutputNaming(path: path, sheets: true).path(forSheet: 7).bytes,
                       [0xFF, 0x2F] + Array("x-0007.jpg".utf8))
    }

    func testSaverSuffix() {
        XCTAssertEqual(OutputNaming(path: PathName("a.JPG"), sheets: false).saverSuffix, ".jpg")
        XCTAssertEqual(OutputNaming(path: PathName("a.jpeg"), sheets: false).saverSuffix, ".jpg")
        XCTAssertEqual(OutputNaming(path: PathName("a.tiff"), sheets: false).saverSuffix, ".tif")
        XCTAssertEqual(OutputNaming(path: PathName("a.png"), sheets: false).saverSuffix, ".png")
        XCTAssertEqual(OutputNaming(path: PathName("a.webp"), sheets: false).saverSuffix, ".webp")
        XCTAssertNil(OutputNaming(path: PathName("a.txt"), sheets: false).saverSuffix)
        XCTAssertNil(OutputNaming(path: PathName("collage"), sheets: false).saverSuffix)
    }
}

final class JSONEventsTests: XCTestCase {
    private func parse(_ line: String, file: StaticString = #filePath, line number: UInt = #line) throws -> [String: Any] {
        XCTAssertFalse(line.contains("\n"), "one line", file: file, line: number)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try XCTUnwrap(object as? [String: Any], "a JSON object: \(line)", file: file, line: number)
    }

    private func decodeBase64(_ text: Any?) -> [UInt8]? {
        (text as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
    }

    private let notUTF8 = PathName(bytes: Array("photos/".utf8) + [0xC3, 0x28, 0xFF, 0x00 + 0x41] + Array(".jpg".utf8))

    func testRejected() throws {
        let tricky = PathName("dir/\"quoted\" back\\slash\ttab\nnewline\u{1}ctl é.jpg")
        let object = try parse(JSONEvents.line(for: .rejected(path: tricky, reason: .portrait, detail: "40x60")))
        XCTAssertEqual(object["event"] as? String, "rejected")
        XCTAssertEqual(object["path"] as? String, tricky.description, "escapes round-trip")
        XCTAssertEqual(object["reason"] as? String, "portrait")
        XCTAssertNil(object["path_base64"], "a UTF-8 path needs no base64")
        for reason in [RejectReason.tooLarge, .unsupported] {
            let other = try parse(JSONEvents.line(for: .rejected(path: tricky, reason: reason, detail: "")))
            XCTAssertEqual(other["reason"] as? String, reason == .tooLarge ? "too-large" : "unsupported")
        }
    }

    func testNonUTF8PathIsRecoverableExactly() throws {
        let object = try parse(JSONEvents.line(for: .failed(path: notUTF8, error: "truncated")))
        XCTAssertEqual(object["event"] as? String, "failed")
        XCTAssertEqual(object["error"] as? String, "truncated")
        XCTAssertNotNil(object["path"] as? String, "still a string, for people")
        XCTAssertEqual(decodeBase64(object["path_base64"]), notUTF8.bytes, "the exact bytes")
    }

    func testWritten() throws {
        let images = [PathName("a.jpg"), notUTF8, PathName("c d.png")]
        let sheet = WrittenSheet(output: PathName("out-0001.jpg"), sheet: 1, images: images, width: 1200, height: 800,
                                 bytes: 12345, milliseconds: 67)
        let object = try parse(JSONEvents.line(for: .written(sheet)))
        XCTAssertEqual(object["event"] as? String, "written")
        XCTAssertEqual(object["output"] as? String, "out-0001.jpg")
        XCTAssertEqual((object["images"] as? [String])?.count, 3)
        XCTAssertEqual((object["images"] as? [String])?[2], "c d.png")
        XCTAssertEqual(object["width"] as? Int, 1200)
        XCTAssertEqual(object["height"] as? Int, 800)
        let encoded = try XCTUnwrap(object["images_base64"] as? [String], "a non-UTF-8 image path has base64 bytes")
        XCTAssertEqual(encoded.map { decodeBase64($0) ?? [] }, images.map(\.bytes), "in tile order")
        XCTAssertNil(object["output_base64"])
    }

    func testSummary() throws {
        var summary = Summary()
        summary.count(.rejected(path: PathName("p"), reason: .portrait, detail: ""))
        summary.count(.failed(path: PathName("f"), error: "x"))
        summary.count(.written(WrittenSheet(output: PathName("o.jpg"), sheet: 1, images: [PathName("a"), PathName("b")],
                                            width: 1, height: 1, bytes: 1, milliseconds: 1)))
        let outcome = RunOutcome(status: .someInputsFailed, message: "1 input(s) could not be read", summary: summary)
        let object = try parse(JSONEvents.line(for: .finished(outcome)))
        XCTAssertEqual(object["event"] as? String, "summary")
        XCTAssertEqual(object["written"] as? Int, 1)
        XCTAssertEqual(object["used"] as? Int, 2)
        XCTAssertEqual(object["rejected"] as? Int, 1)
        XCTAssertEqual(object["failed"] as? Int, 1)
        XCTAssertEqual(object["status"] as? Int, 65)
    }

    func testEveryEventOfARealRunIsOneJSONObject() throws {
        try Vips.start()
        let folder = try TemporaryDirectory()
        try makeDirectory(folder("in"))
        try writeFlatImage(folder("in/a.png"), RGB(red: 1, green: 2, blue: 3))
        try writeFlatImage(folder(bytes: Array("in/".utf8) + [0xFF] + Array(".png".utf8)), RGB(red: 9, green: 8, blue: 7))
        try writeFlatImage(folder("in/tall.png"), .black, width: 10, height: 20)
        var configuration = CollageConfiguration(inputs: [.path(folder("in"))])
        configuration.output = folder("out.png")
        configuration.canvasWidth = 120
        configuration.canvasHeight = 80
        let result = runCollage(configuration)
        let objects = try result.events.map { try parse(JSONEvents.line(for: $0)) }
        XCTAssertEqual(objects.last?["event"] as? String, "summary", "summary is the last line")
        let written = try XCTUnwrap(objects.first { $0["event"] as? String == "written" })
        XCTAssertEqual(decodeBase64((written["images_base64"] as? [String])?[1]),
                       folder.pathName.bytes + Array("/in/".utf8) + [0xFF] + Array(".png".utf8))
        XCTAssertEqual(objects.filter { $0["event"] as? String == "rejected" }.map { $0["reason"] as? String }, ["portrait"])
    }
}

final class OptionValuesTests: XCTestCase {
    func testSize() {
        XCTAssertTrue(OptionValues.size("1200x800")! == (1200, 800))
        XCTAssertTrue(OptionValues.size("1200X800")! == (1200, 800))
        XCTAssertTrue(OptionValues.size("1x1")! == (1, 1))
        XCTAssertTrue(OptionValues.size("65500x65500")! == (65500, 65500))
        for bad in ["", "1200", "1200x", "x800", "0x800", "1200x0", "-1x5", "65501x10", "10x65501",
                    "1200x800x3", "axb", "12.5x10", "1200 x 800", "1200*800"] {
            XCTAssertNil(OptionValues.size(bad), "'\(bad)' is not a size")
        }
        // --size WIDTHx: no height, each sheet as tall as its content; a height alone is not a size.
        XCTAssertEqual(CanvasSize("1200x").map { [$0.width, $0.height ?? -1] }, [1200, -1])
        XCTAssertEqual(CanvasSize("1200X800").map { [$0.width, $0.height ?? -1] }, [1200, 800])
        for bad in ["x800", "x", "0x", "65501x", "-5x", "12.5x"] { XCTAssertNil(CanvasSize(bad), bad) }
        XCTAssertEqual(CanvasSize.nominalHeight(width: 1200), 800)
    }

    func testColour() {
        XCTAssertEqual(OptionValues.colour("white"), .white)
        XCTAssertEqual(OptionValues.colour("Black"), .black)
        XCTAssertEqual(OptionValues.colour("grey"), RGB(red: 128, green: 128, blue: 128))
        XCTAssertEqual(OptionValues.colour("gray"), OptionValues.colour("grey"))
        XCTAssertEqual(OptionValues.colour("#fff"), .white)
        XCTAssertEqual(OptionValues.colour("#F80"), RGB(red: 0xFF, green: 0x88, blue: 0x00))
        XCTAssertEqual(OptionValues.colour("#FF8000"), RGB(red: 255, green: 128, blue: 0))
        XCTAssertEqual(OptionValues.colour("#0a1B2c"), RGB(red: 10, green: 27, blue: 44))
        XCTAssertEqual(OptionValues.colour("10,20,30"), RGB(red: 10, green: 20, blue: 30))
        XCTAssertEqual(OptionValues.colour("10, 20 ,30"), RGB(red: 10, green: 20, blue: 30))
        XCTAssertEqual(OptionValues.colour("0,0,255"), RGB(red: 0, green: 0, blue: 255))
        for bad in ["", "bogus", "#12", "#12345", "#1234567", "#ggg", "256,0,0", "1,2", "1,2,3,4", "-1,0,0", "a,b,c"] {
            XCTAssertNil(OptionValues.colour(bad), "'\(bad)' is not a colour")
        }
    }
}
