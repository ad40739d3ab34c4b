import CollageTestSupport
import Foundation
import Vips
import XCTest

/// RAW photos and videos through the binary, named on the command line (a
/// named file is always tried; its content picks the decoder): each tile's
/// pixels on the sheet, the `placed` events' `source`, `duration` and
/// `frame`, and a clear `failed` line for what cannot be shown.
final class CameraRollTests: CLITestCase {
    private let green = RGB(red: 40, green: 170, blue: 60)

    private func jpeg(_ width: Int, _ height: Int, _ colour: RGB) throws -> [UInt8] {
        try Encoder.encode(PixelBuffer(width: width, height: height, fill: colour), suffix: ".jpg").bytes
    }

    private func placed(_ all: [[String: Any]], _ name: String) -> [String: Any]? {
        events(all, "placed").first { $0["path"] as? String == name }
    }

    func testRawPhotosOnASheet() throws {
        var dng = DNGFile()
        dng.date = "2024:05:06 07:08:09"
        try TestMedia.dngWithExifToolPreview(dng, preview: try jpeg(800, 600, green), at: path("a-preview.dng"))
        var plain = DNGFile()
        plain.colour = RGB(red: 220, green: 200, blue: 30)
        write(plain.bytes, to: "b-raw.dng")
        let bytes = DNGFile().bytes
        write(Array(bytes.prefix(bytes.count - 300 * 600)), to: "c-cut.dng")
        // A CR2's first bytes (a TIFF marked "CR"), then nothing that makes sense.
        write([0x49, 0x49, 0x2A, 0x00, 0x10, 0, 0, 0, 0x43, 0x52, 2, 0] + [UInt8](repeating: 0, count: 60), to: "d-junk.cr2")
        writeImage(.white, to: "e.png")
        settle()
        let result = try collage(["a-preview.dng", "b-raw.dng", "c-cut.dng", "d-junk.cr2", "e.png", "--size", "600x400",
                                  "--label", "{date}", "--json", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 65, result.summary)
        let all = assertValidEventStream(result, "RAW photos")
        XCTAssertEqual(placed(all, "a-preview.dng")?["source"] as? String, "preview")
        XCTAssertEqual(placed(all, "a-preview.dng")?["label"] as? String, "2024-05-06", "{date} is the RAW's")
        XCTAssertEqual(placed(all, "b-raw.dng")?["source"] as? String, "raw", "no preview: the raw data")
        XCTAssertNil(placed(all, "e.png")?["source"], "images have no source")
        let failures = Dictionary(uniqueKeysWithValues: events(all, "failed").map {
            ($0["path"] as? String ?? "", $0["error"] as? String ?? "")
        })
        XCTAssertTrue(failures["c-cut.dng"]?.contains("truncated raw data") ?? false, "\(failures)")
        XCTAssertNotNil(failures["d-junk.cr2"], "\(failures)")
        XCTAssertFalse(failures.values.contains { $0.contains("corrupt tiff") }, "never libvips' TIFF loader: \(failures)")
        guard let sheet = decoded("sheet.png"), let a = placed(all, "a-preview.dng"), let b = placed(all, "b-raw.dng")
        else { return }
        func centre(_ event: [String: Any], dx: Int = 0) -> RGB {
            sheet.pixel(x: (event["x"] as! Int) + (event["width"] as! Int) / 2 + dx,
                        y: (event["y"] as! Int) + (event["height"] as! Int) / 2)
        }
        XCTAssertColour(centre(a), green, tolerance: 8, "the preview's colour lands in its tile")
        let quarter = (b["width"] as! Int) / 4
        XCTAssertColour(centre(b, dx: -quarter), plain.colour, tolerance: 30, "the raw data's left half")
        XCTAssertColour(centre(b, dx: quarter), .white, tolerance: 10, "the raw data's right half")
    }

    func testRawFullAndSkip() throws {
        var dng = DNGFile()
        dng.preview = try jpeg(800, 600, green)
        write(dng.bytes, to: "a.dng")
        let full = try collage(["a.dng", "--raw", "full", "--size", "300x200", "--json", "-o", "full.png"])
        XCTAssertEqual(full.status, 0, full.summary)
        XCTAssertEqual(placed(jsonEvents(full), "a.dng")?["source"] as? String, "raw")
        writeImage(.white, to: "b.png")
        let skip = try collage(["a.dng", "b.png", "--raw", "skip", "--json", "-o", "skip.png"])
        XCTAssertEqual(skip.status, 0, skip.summary)
        // A RAW left out by --raw skip is passed over: counted in the summary, told in a notice.
        let summary = events(jsonEvents(skip), "summary").first
        XCTAssertEqual((summary?["passed_over"] as? [String: Any])?["raw"] as? Int, 1, skip.summary)
        XCTAssertTrue(events(jsonEvents(skip), "notice").contains { ($0["message"] as? String)?.contains("RAW") == true })
    }

    func testVideosOnASheet() throws {
        try TestMedia.video(path("a-lead.mp4"), seconds: 10, black: 2)
        try TestMedia.rotated(path("a-lead.mp4"), to: path("b-upright.mp4"))
        let whole = try TestMedia.videoBytes(in: path(""), seconds: 4)
        write(Array(whole.prefix(whole.count / 2)), to: "c-cut.mp4")
        write([], to: "d-empty.mov")
        settle()
        let result = try collage(["a-lead.mp4", "b-upright.mp4", "c-cut.mp4", "d-empty.mov", "--video", "--allow-portrait",
                                  "--size", "800x300", "--label", "{duration}", "--json", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 65, result.summary)
        let all = assertValidEventStream(result, "videos")
        let lead = try XCTUnwrap(placed(all, "a-lead.mp4"))
        XCTAssertEqual(lead["duration"] as? Double ?? 0, 10, accuracy: 0.1)
        XCTAssertGreaterThanOrEqual(lead["frame"] as? Double ?? 0, 2, "past the black lead-in")
        XCTAssertEqual(lead["label"] as? String, "0:10")
        XCTAssertTrue(events(all, "failed").contains {
            $0["path"] as? String == "c-cut.mp4" && ($0["error"] as? String ?? "").contains("moov atom not found")
        }, "\(events(all, "failed"))")
        guard let sheet = decoded("sheet.png"), let upright = placed(all, "b-upright.mp4") else { return }
        let (x, y, w, h) = (lead["x"] as! Int, lead["y"] as! Int, lead["width"] as! Int, lead["height"] as! Int)
        XCTAssertColour(sheet.pixel(x: x + w / 8, y: y + h / 2), TestMedia.left, tolerance: 16)
        XCTAssertColour(sheet.pixel(x: x + w * 7 / 8, y: y + h / 2), TestMedia.right, tolerance: 16)
        XCTAssertColour(sheet.pixel(x: x + w / 2 - 2, y: y + h / 2), .white, tolerance: 40, "the play mark")
        let (ux, uy, uw, uh) = (upright["x"] as! Int, upright["y"] as! Int, upright["width"] as! Int, upright["height"] as! Int)
        XCTAssertColour(sheet.pixel(x: ux + uw / 2, y: uy + uh / 10), TestMedia.right, tolerance: 16, "turned as ffmpeg shows it")
    }

    func testVideosNeedTheFlag() throws {
        try TestMedia.video(path("a.mp4"), seconds: 2, black: 0)
        writeImage(.white, to: "b.png")
        let result = try collage(["a.mp4", "b.png", "--json", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(events(jsonEvents(result), "rejected").first?["path"] as? String, "a.mp4")
    }
}
