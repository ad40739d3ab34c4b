import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// RAW photos that LibRaw alone would lose, and MPO, through the binary:
/// a lossy DNG is placed from its raw data; a RAW whose every path fails
/// is `failed`, counted, saying why (never "no eligible image" with
/// nothing failed); an MPO is an image a folder scan takes.
final class CameraRawTests: CLITestCase {
    private func jpeg(_ width: Int, _ height: Int, _ colour: RGB) throws -> [UInt8] {
        try Encoder.encode(PixelBuffer(width: width, height: height, fill: colour), suffix: ".jpg").bytes
    }

    func testALossyDNGIsPlacedFromItsRawData() throws {
        var dng = DNGFile()
        dng.lossy = true
        dng.preview = try jpeg(160, 100, .black)
        write(dng.bytes, to: "lossy.dng")
        for extra in [[String](), ["--raw", "full"]] {
            let result = try collage(["lossy.dng", "--size", "600x400", "--json", "-o", "sheet.png"] + extra)
            XCTAssertEqual(result.status, 0, "\(extra): \(result.summary)")
            let placed = events(jsonEvents(result), "placed").first
            XCTAssertEqual(placed?["source"] as? String, "raw", "\(extra)")
            guard let sheet = decoded("sheet.png"), let placed, let x = placed["x"] as? Int, let y = placed["y"] as? Int,
                  let width = placed["width"] as? Int, let height = placed["height"] as? Int else { continue }
            XCTAssertColour(sheet.pixel(x: x + width / 4, y: y + height / 2), dng.colour, tolerance: 30, "\(extra)")
            XCTAssertColour(sheet.pixel(x: x + 3 * width / 4, y: y + height / 2), .white, tolerance: 12, "\(extra)")
        }
    }

    /// Its preview covers the tile it is decoded ahead for, not the larger
    /// frame it gets alone on the sheet; its raw data is cut short.
    func testARawWhoseEveryPathFailsIsCountedAsFailed() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(800, 600, .black)
        let bytes = dng.bytes
        write(Array(bytes.prefix(bytes.count - 100_000)), to: "cut.dng")
        settle("cut.dng")
        let result = try collage(["cut.dng", "--json", "-o", "sheet.jpg"])
        XCTAssertEqual(result.status, 66, result.summary)
        let all = jsonEvents(result)
        let failed = events(all, "failed")
        XCTAssertEqual(failed.count, 1, result.summary)
        XCTAssertTrue((failed.first?["error"] as? String)?.contains("truncated raw data") ?? false, "\(failed)")
        XCTAssertEqual(events(all, "summary").first?["failed"] as? Int, 1, result.summary)
        XCTAssertTrue(result.stderrText.contains("no eligible image found (1 failed)"), result.stderrText)
    }

    /// A CR3 LibRaw 0.20 does not know (built box by box): its previews,
    /// found in its boxes, the smallest that covers each tile.
    func testACR3FromACameraNewerThanLibRawIsPlacedFromItsPreviews() throws {
        var cr3 = CR3File()
        cr3.thumbnail = try jpeg(160, 120, RGB(red: 210, green: 30, blue: 30))
        cr3.preview = try jpeg(480, 320, RGB(red: 40, green: 170, blue: 60))
        cr3.fullSize = try jpeg(1200, 800, RGB(red: 30, green: 50, blue: 200))
        try FileManager.default.createDirectory(atPath: path("card"), withIntermediateDirectories: true)
        write(cr3.bytes, to: "card/IMG_0001.CR3")
        for (size, colour) in [("400x300", RGB(red: 40, green: 170, blue: 60)), ("1000x700", RGB(red: 30, green: 50, blue: 200))] {
            let result = try collage(["card", "--size", size, "--json", "-o", "sheet.png"])
            XCTAssertEqual(result.status, 0, "\(size): \(result.summary)")
            let placed = events(jsonEvents(result), "placed").first
            XCTAssertEqual(placed?["source"] as? String, "preview", size)
            guard let sheet = decoded("sheet.png"), let placed, let x = placed["x"] as? Int, let y = placed["y"] as? Int,
                  let width = placed["width"] as? Int, let height = placed["height"] as? Int else { continue }
            XCTAssertColour(sheet.pixel(x: x + width / 2, y: y + height / 2), colour, tolerance: 10, size)
        }
    }

    func testAnMPOIsAnImageItsFirstPictureShown() throws {
        let first = try jpeg(300, 200, RGB(red: 30, green: 160, blue: 60))
        let second = try jpeg(300, 200, RGB(red: 200, green: 30, blue: 30))
        try FileManager.default.createDirectory(atPath: path("roll"), withIntermediateDirectories: true)
        write(first + second, to: "roll/stereo.MPO")
        let result = try collage(["roll", "--size", "300x200", "--json", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(events(jsonEvents(result), "placed").count, 1, result.summary)
        guard let sheet = decoded("sheet.png") else { return }
        XCTAssertColour(sheet.pixel(x: 150, y: 100), RGB(red: 30, green: 160, blue: 60), tolerance: 10, "the first picture")
    }

    /// A file cut short and modified just now is still being copied:
    /// passed over, named in a notice, the run as if it was not there, and
    /// not recorded for --skip-unchanged; two hours old, it is failed.
    func testAFileStillBeingCopiedIsPassedOverThenFailedOnceOld() throws {
        let whole = try Encoder.encode(PixelBuffer(width: 400, height: 300) { x, y in
            RGB(red: UInt8(truncatingIfNeeded: x &* 7 ^ y), green: UInt8(truncatingIfNeeded: y &* 3), blue: 90)
        }, suffix: ".jpg").bytes
        try FileManager.default.createDirectory(atPath: path("roll"), withIntermediateDirectories: true)
        writeImage(.white, to: "roll/a.png")
        write(Array(whole.prefix(whole.count / 2)), to: "roll/b.jpg")
        let copying = try collage(["roll", "--json", "--skip-unchanged", "-o", "sheet.png"])
        XCTAssertEqual(copying.status, 0, copying.summary)
        let all = jsonEvents(copying)
        XCTAssertTrue(events(all, "failed").isEmpty, copying.summary)
        XCTAssertTrue(events(all, "notice").contains {
            ($0["message"] as? String)?.hasPrefix("roll/b.jpg: still being written") == true
        }, copying.summary)
        let summary = events(all, "summary").first
        XCTAssertEqual((summary?["passed_over"] as? [String: Any])?["being_written"] as? Int, 1, copying.summary)
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["roll/a.png"])
        // Under -v, named; cron (no -v, not a terminal) hears nothing of it.
        let verbose = try collage(["roll", "-v", "-o", "verbose.png"])
        XCTAssertEqual(verbose.status, 0, verbose.summary)
        XCTAssertTrue(verbose.stderrText.contains("roll/b.jpg: still being written"), verbose.stderrText)
        // Not recorded: the next run does not find the output unchanged.
        let again = try collage(["roll", "--json", "--skip-unchanged", "-o", "sheet.png"])
        XCTAssertTrue(events(jsonEvents(again), "unchanged").isEmpty, again.summary)
        // Two hours old, the same file is failed.
        settle("roll/b.jpg")
        let old = try collage(["roll", "--json", "-o", "old.png"])
        XCTAssertEqual(old.status, 65, old.summary)
        XCTAssertEqual(events(jsonEvents(old), "failed").first?["path"] as? String, "roll/b.jpg", old.summary)
    }
}
