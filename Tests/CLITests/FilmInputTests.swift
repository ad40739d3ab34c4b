import CollageTestSupport
import Foundation
import Vips
import XCTest

/// `--frames N` through the binary on the films the contract's "Colour" and
/// "Bounded" bullets name: HDR (HLG, PQ) beside its SDR twin, a film cut
/// short, a phone's upright film, a file with no video stream, a film with
/// no duration. Each is made here with ffmpeg; the sheets' pixels, the exit
/// status and the events are asserted, never a time.
final class FilmInputTests: CLITestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        guard haveProgram("ffmpeg") else { throw XCTSkip("needs ffmpeg") }
    }

    private func rect(_ event: [String: Any]) -> (x: Int, y: Int, w: Int, h: Int) {
        (event["x"] as? Int ?? -1, event["y"] as? Int ?? -1, event["width"] as? Int ?? -1, event["height"] as? Int ?? -1)
    }

    /// The colours of the four patches (`TestFilms.centres`) of `video`'s
    /// first tile on `sheet`, each the mean of a 9x9 square at its centre.
    private func patches(_ sheet: String, _ video: String, _ all: [[String: Any]]) throws -> [RGB] {
        let picture = try XCTUnwrap(decoded(sheet))
        let placed = events(all, "placed").first { $0["path"] as? String == video }
        let tile = rect(try XCTUnwrap(placed, "a tile of \(video)"))
        return TestFilms.centres.map { cx, cy in
            let (x, y) = (tile.x + cx * tile.w / 320, tile.y + cy * tile.h / 240)
            var sum = (0, 0, 0)
            for dy in -4...4 {
                for dx in -4...4 {
                    let p = picture.pixel(x: x + dx, y: y + dy)
                    sum = (sum.0 + Int(p.red), sum.1 + Int(p.green), sum.2 + Int(p.blue))
                }
            }
            return RGB(red: UInt8(sum.0 / 81), green: UInt8(sum.1 / 81), blue: UInt8(sum.2 / 81))
        }
    }

    /// An HLG and a PQ film of the same scene as an SDR (BT.709) film: each
    /// sheet's tile is as bright and as colourful as the SDR twin's (not
    /// the dark, grey picture of HDR code values shown as SDR), and close
    /// to FFmpeg's own tone mapping of the same frame.
    func testHDRFilmsLookAsTheirSDRTwinDoes() throws {
        try TestFilms.sdr(path("sdr.mp4"), matrix: "bt709")
        try TestFilms.hdr(path("hlg.mp4"), transfer: "arib-std-b67")
        try TestFilms.hdr(path("pq.mp4"), transfer: "smpte2084")
        let result = try collage(["sdr.mp4", "hlg.mp4", "pq.mp4", "--frames", "1", "--json", "-o", "{stem}.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "hdr")
        XCTAssertEqual(events(all, "written").compactMap { $0["output"] as? String }, ["sdr.png", "hlg.png", "pq.png"])
        let sdr = try patches("sdr.png", "sdr.mp4", all)
        for (index, patch) in TestFilms.patches.enumerated() {
            XCTAssertColour(sdr[index], patch, tolerance: 8, "the SDR twin shows its code values, patch \(index)")
        }
        for name in ["hlg", "pq"] {
            let seen = try patches("\(name).png", "\(name).mp4", all)
            let reference = try TestFilms.ffmpegToneMapped(path("\(name).mp4"))
            for (index, (cx, cy)) in TestFilms.centres.enumerated() {
                let (l, c, _) = TestFilms.lch(seen[index]), (twinL, twinC, _) = TestFilms.lch(sdr[index])
                let i = (cy * 320 + cx) * 3
                let ffmpeg = TestFilms.lch(RGB(red: reference[i], green: reference[i + 1], blue: reference[i + 2]))
                print("\(name) patch \(index): L* \(l) C* \(c); SDR twin \(twinL) \(twinC); FFmpeg \(ffmpeg.l) \(ffmpeg.c)")
                // Untone-mapped, these frames were L* 27.7 / C* 5.4 (HLG) and 35.7 / 3.5 (PQ) where the twin is about 50.
                XCTAssertEqual(l, twinL, accuracy: 8, "\(name) patch \(index): as light as the SDR twin")
                XCTAssertEqual(l, ffmpeg.l, accuracy: 7, "\(name) patch \(index): as light as FFmpeg maps it")
                XCTAssertEqual(c, ffmpeg.c, accuracy: 9, "\(name) patch \(index): as colourful as FFmpeg maps it")
                if index > 0 { XCTAssertGreaterThan(c, twinC * 0.5, "\(name) patch \(index): not grey") }
            }
        }
    }

    /// Cut at half its bytes: a film whose index is at its start gives the
    /// frames before the cut on a sheet of that many tiles and a `failed`
    /// line; one whose index was at its end gives a `failed` line and no
    /// sheet, the old sheet left as it was. The run goes on (65).
    func testATruncatedFilmGivesWhatItCanOrAClearLine() throws {
        for (name, extra) in [("front", ["-movflags", "+faststart"]), ("back", [])] {
            try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=10",
                                         "-c:v", "libx264", "-g", "25"] + extra + [path("\(name)-whole.mp4")])
            let bytes = try XCTUnwrap(contents("\(name)-whole.mp4"))
            write(Array(bytes.prefix(bytes.count / 2)), to: "\(name).mp4")
        }
        try TestMedia.video(path("good.mp4"), seconds: 4, black: 0)
        let old = image(.white)
        write(old, to: "back.png")
        settle()
        let result = try collage(["front.mp4", "back.mp4", "good.mp4", "--frames", "6", "--json", "-o", "{stem}.png"])
        XCTAssertEqual(result.status, 65, result.summary)
        let all = assertValidEventStream(result, "truncated")
        let failed = Dictionary(events(all, "failed").map { ($0["path"] as? String ?? "", $0["error"] as? String ?? "") },
                                uniquingKeysWith: { $0 + " | " + $1 })
        XCTAssertEqual(Set(failed.keys), ["front.mp4", "back.mp4"], "\(failed)")
        XCTAssertTrue(failed["back.mp4"]?.contains("moov atom not found") ?? false, "FFmpeg's reason: \(failed)")
        XCTAssertTrue(failed["front.mp4"]?.contains("frame(s), then:") ?? false, "the frames, then why: \(failed)")
        XCTAssertEqual(events(all, "written").compactMap { $0["output"] as? String }.sorted(), ["front.png", "good.png"])
        XCTAssertEqual(contents("back.png"), old, "no sheet for it: the old one untouched")
        // The frames before the cut (at 0.83, 2.5, 4.17 s of 10 s: at least two), none after it.
        let front = events(all, "frame").filter { $0["path"] as? String == "front.mp4" }
        XCTAssertGreaterThanOrEqual(front.count, 2, result.summary)
        XCTAssertLessThan(front.count, 6, result.summary)
        XCTAssertTrue(front.allSatisfy { $0["time"] as? Double ?? 99 < 5.5 }, "\(front)")
        let sheet = try XCTUnwrap(decoded("front.png"))
        for placed in events(all, "placed") where placed["path"] as? String == "front.mp4" {
            let tile = rect(placed)
            let seen = sheet.pixel(x: tile.x + tile.w / 2, y: tile.y + tile.h / 3)
            XCTAssertGreaterThan(Int(seen.red) + Int(seen.green) + Int(seen.blue), 60, "a frame, not a black tile")
        }
        XCTAssertEqual(events(all, "frame").filter { $0["path"] as? String == "good.mp4" }.count, 6)
    }

    /// A phone's upright film (landscape pixels, a display matrix turning
    /// it a quarter): accepted as the portrait it is shown as, its tiles
    /// upright as players show it (the right half of the pixels on top),
    /// in portrait cells: of its own shape under `--size WIDTHx`, aimed at
    /// it on the default canvas (before, landscape bands cut from it).
    func testARotatedPhoneFilmHasUprightPortraitTiles() throws {
        try TestMedia.video(path("plain.mp4"), seconds: 4, black: 0)
        try TestMedia.rotated(path("plain.mp4"), to: path("phone.mp4"))
        for (size, sheetName) in [(nil, "sheet.png"), ("900x", "natural.png")] {
            let result = try collage(["phone.mp4", "--frames", "3", "--json", "-o", sheetName] + (size.map { ["--size", $0] } ?? []))
            XCTAssertEqual(result.status, 0, result.summary)
            let all = assertValidEventStream(result, "rotated")
            let accepted = try XCTUnwrap(events(all, "accepted").first)
            XCTAssertEqual([accepted["width"] as? Int, accepted["height"] as? Int], [240, 320], "portrait, as shown")
            let sheet = try XCTUnwrap(decoded(sheetName))
            let tiles = events(all, "placed").map(rect)
            XCTAssertEqual(tiles.count, 3)
            for tile in tiles {
                if size == nil {
                    XCTAssertGreaterThan(tile.h, tile.w, "a portrait cell: \(tile)")
                } else {
                    XCTAssertEqual(Double(tile.w) / Double(tile.h), 0.75, accuracy: 0.01, "the film's shape: \(tile)")
                }
                // Turned a quarter clockwise: the right half (blue) on top, the left (red) below, across the tile's width.
                for x in [tile.x + tile.w / 10, tile.x + tile.w * 9 / 10] {
                    XCTAssertColour(sheet.pixel(x: x, y: tile.y + tile.h / 10), TestMedia.right, tolerance: 16, "top at \(x)")
                    XCTAssertColour(sheet.pixel(x: x, y: tile.y + tile.h * 9 / 10), TestMedia.left, tolerance: 16,
                                    "bottom at \(x)")
                }
            }
        }
    }

    /// A file with no video stream, alone: a clear line saying so, no
    /// sheet, and 66 (no collage was written: nothing eligible was found).
    /// A film with no duration (Matroska written to a pipe has none): the
    /// same, and the run goes on to the next film.
    func testNoVideoStreamOrNoDurationIsAClearLine() throws {
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=3", "-c:a", "aac", path("tone.mp4")])
        let alone = try collage(["tone.mp4", "--frames", "4", "-o", "tone.png"])
        XCTAssertEqual(alone.status, 66, alone.summary)
        XCTAssertEqual(alone.stderrLines.filter { $0.contains("tone.mp4") }, ["collage: tone.mp4: no video stream"], alone.summary)
        XCTAssertTrue(alone.stderrText.contains("(1 failed)"), "counted: \(alone.stderrText)")
        XCTAssertFalse(exists("tone.png"))

        let piped = path("piped.mkv")
        try TestMedia.run("sh", ["-c", "ffmpeg -v error -f lavfi -i testsrc2=s=320x240:r=25:d=4 -c:v libx264 -f matroska - | cat > '\(piped)'"])
        try TestMedia.video(path("good.mp4"), seconds: 4, black: 0)
        let result = try collage(["piped.mkv", "good.mp4", "--frames", "2", "--json", "-o", "{stem}.png"])
        XCTAssertEqual(result.status, 65, result.summary)
        let all = assertValidEventStream(result, "no duration")
        XCTAssertEqual(events(all, "failed").map { $0["path"] as? String }, ["piped.mkv"])
        XCTAssertTrue((events(all, "failed").first?["error"] as? String ?? "").contains("length"), result.summary)
        XCTAssertEqual(events(all, "written").compactMap { $0["output"] as? String }, ["good.png"])
        XCTAssertFalse(exists("piped.png"))
    }
}
