import CollageTestSupport
import Foundation
import Vips
import XCTest

/// `--frames N` and `--scenes` through the binary: films of static shots
/// made here with ffmpeg, each shot its own colour with a white box in a
/// place of its own (so that no frame is flat and each shot has its own
/// shape), one sheet per video.
final class FilmTests: CLITestCase {
    static let colours = [RGB(red: 0xC0, green: 0x20, blue: 0x20), RGB(red: 0x20, green: 0xA0, blue: 0x40),
                          RGB(red: 0x20, green: 0x40, blue: 0xC0), RGB(red: 0xC0, green: 0xA0, blue: 0x30),
                          RGB(red: 0x60, green: 0x60, blue: 0x60), RGB(red: 0xA0, green: 0x20, blue: 0xA0),
                          RGB(red: 0x20, green: 0xA0, blue: 0xA0), RGB(red: 0x80, green: 0x40, blue: 0x10)]

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard haveProgram("ffmpeg") else { throw XCTSkip("needs ffmpeg") }
    }

    /// `shots` static shots of 2 s each (the colours above, in order), with
    /// a fade from black into the first; `audio`: an AAC stereo track.
    private func film(_ relative: String, shots: Int, audio: Bool = false) throws {
        func hex(_ c: RGB) -> String { String(format: "0x%02X%02X%02X", c.red, c.green, c.blue) }
        var graph = (0..<shots).map { index in
            "color=c=\(hex(Self.colours[index % Self.colours.count])):s=320x240:r=25:d=2,"
                + "drawbox=x=\(120 + index % 4 * 50):y=\(20 + index / 4 % 2 * 120):w=60:h=90:c=white:t=fill[s\(index)];"
        }.joined()
        graph += (0..<shots).map { "[s\($0)]" }.joined() + "concat=n=\(shots):v=1:a=0,fade=in:d=0.5,format=yuv420p"
        var arguments = ["-v", "error", "-y", "-filter_complex", graph]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=f=440:d=\(shots * 2)", "-ac", "2", "-c:a", "aac"] }
        try TestMedia.run("ffmpeg", arguments + ["-c:v", "libx264", path(relative)])
    }

    /// The shot each tile of `sheet` shows: the colour at the left of each
    /// `placed` rectangle, matched to the shots' colours (nil: none).
    private func shots(_ sheet: String, _ all: [[String: Any]]) throws -> [Int?] {
        let picture = try XCTUnwrap(decoded(sheet))
        return events(all, "placed").map { placed in
            let (x, y, w, h) = (placed["x"] as! Int, placed["y"] as! Int, placed["width"] as! Int, placed["height"] as! Int)
            let seen = picture.pixel(x: x + w / 8, y: y + h / 2)
            return Self.colours.firstIndex { $0.distance(to: seen) <= 30 }
        }
    }

    func testOneSheetOfNFramesSpreadOverTheFilm() throws {
        try film("six.mp4", shots: 6, audio: true)
        let result = try collage(["six.mp4", "--frames", "6", "--json", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "film")
        XCTAssertEqual(events(all, "written").count, 1)
        XCTAssertEqual(events(all, "written").first?["output"] as? String, "sheet.png")
        // Spread times 1, 3, 5, 7, 9, 11 s: one tile in each 2-second shot, in order.
        XCTAssertEqual(try shots("sheet.png", all), [0, 1, 2, 3, 4, 5])
        let frames = events(all, "frame")
        XCTAssertEqual(frames.map { $0["cell"] as? Int }, [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(Set(frames.map { $0["output"] as? String }), ["sheet.png"])
        XCTAssertEqual(Set(frames.map { $0["path"] as? String }), ["six.mp4"])
        for (index, frame) in frames.enumerated() {
            let time = frame["time"] as? Double ?? -1
            XCTAssertEqual(time, Double(index * 2 + 1), accuracy: 0.6, "near its spread time")
        }
        // Each tile captioned with its time.
        XCTAssertEqual(events(all, "placed").map { $0["label"] as? String }, ["0:01", "0:03", "0:05", "0:07", "0:09", "0:11"])
    }

    func testScenesShowTheMostDistinctShotsOnceEach() throws {
        try film("eight.mp4", shots: 8)
        let result = try collage(["eight.mp4", "--frames", "4", "--scenes", "--json", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "scenes")
        let seen = try shots("sheet.png", all)
        XCTAssertEqual(seen.count, 4)
        XCTAssertEqual(Set(seen.compactMap { $0 }).count, 4, "four shots, none twice: \(seen)")
        XCTAssertEqual(seen.compactMap { $0 }, seen.compactMap { $0 }.sorted(), "in time order")
    }

    func testAFolderOfVideosGivesASheetEachNamedByStem() throws {
        makeFolder("films")
        try film("films/a.mp4", shots: 2)
        try film("films/b.mov", shots: 3)
        writeImage(.white, to: "films/still.png")
        makeFolder("sheets")
        let result = try collage(["films", "--frames", "2", "--json", "-o", "sheets/{stem}.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "films")
        XCTAssertEqual(events(all, "written").compactMap { $0["output"] as? String }, ["sheets/a.jpg", "sheets/b.jpg"])
        XCTAssertEqual(events(all, "frame").count, 4)
        XCTAssertTrue(exists("sheets/a.jpg") && exists("sheets/b.jpg"))
        // With --skip-unchanged the state is kept; a second such run writes nothing.
        let recorded = try collage(["films", "--frames", "2", "--json", "--skip-unchanged", "-o", "sheets/{stem}.jpg"])
        let unchanged = try collage(["films", "--frames", "2", "--json", "--skip-unchanged", "-o", "sheets/{stem}.jpg"])
        XCTAssertEqual(recorded.status, 0, recorded.summary)
        XCTAssertEqual(unchanged.status, 0, unchanged.summary)
        XCTAssertEqual(events(jsonEvents(unchanged), "written").count, 0, "unchanged: \(unchanged.summary)")
        XCTAssertEqual(events(jsonEvents(unchanged), "unchanged").count, 2)
    }

    func testShardsShareTheVideosOut() throws {
        makeFolder("films")
        for name in ["a", "b", "c", "d"] { try film("films/\(name).mp4", shots: 1) }
        var written: [String] = []
        for index in 0..<2 {
            let result = try collage(["films", "--frames", "1", "--shard", "\(index)/2", "--json", "-o", "{stem}.png"])
            XCTAssertEqual(result.status, 0, result.summary)
            written += events(jsonEvents(result), "written").compactMap { $0["output"] as? String }
        }
        XCTAssertEqual(written.sorted(), ["a.png", "b.png", "c.png", "d.png"], "each video by one shard")
    }

    /// A 16:9 film on a 1200x800 sheet (`--size` gives both sides, so its
    /// cells are not the film's shape): each frame whole, its white top band
    /// and green bottom band shown (a burnt-in time code or subtitles there
    /// are not cropped); `--fit cover` still fills and crops.
    func testAWideFilmsFramesAreShownWholeUnlessCoverIsAsked() throws {
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0xC02020:s=640x360:r=25:d=6",
                                     "-vf", "drawbox=x=0:y=0:w=640:h=24:c=white:t=fill,"
                                        + "drawbox=x=0:y=336:w=640:h=24:c=0x20C020:t=fill,"
                                        + "drawbox=x=300:y=150:w=40:h=60:c=blue:t=fill,format=yuv420p",
                                     "-c:v", "libx264", path("wide.mp4")])
        for fit in [nil, "cover"] {
            let result = try collage(["wide.mp4", "--frames", "12", "--size", "1200x800", "--json", "-o", "sheet.png"]
                                     + (fit.map { ["--fit", $0] } ?? []))
            XCTAssertEqual(result.status, 0, result.summary)
            let all = assertValidEventStream(result, "wide")
            let picture = try XCTUnwrap(decoded("sheet.png"))
            let placed = events(all, "placed")
            XCTAssertEqual(placed.count, 12)
            for tile in placed {
                let (x, y, w, h) = (tile["x"] as! Int, tile["y"] as! Int, tile["width"] as! Int, tile["height"] as! Int)
                let top = picture.pixel(x: x + w / 8, y: y + 2), bottom = picture.pixel(x: x + w / 8, y: y + h - 3)
                if fit == nil {
                    XCTAssertEqual(Double(w) / Double(h), 16.0 / 9.0, accuracy: 0.02, "the frame's own shape: \(w)x\(h)")
                    XCTAssertLessThanOrEqual(RGB.white.distance(to: top), 40, "its top band shown: \(top)")
                    XCTAssertLessThanOrEqual(RGB(red: 0x20, green: 0xC0, blue: 0x20).distance(to: bottom), 40,
                                             "its bottom band shown: \(bottom)")
                } else {
                    XCTAssertGreaterThan(Double(w) / Double(h), 2.0, "cover fills the wide cell: \(w)x\(h)")
                    XCTAssertLessThanOrEqual(RGB(red: 0xC0, green: 0x20, blue: 0x20).distance(to: top), 40,
                                             "cover crops the top band: \(top)")
                }
            }
        }
    }

    func testUsageErrors() throws {
        try film("a.mp4", shots: 1)
        try film("b.mp4", shots: 1)
        for (arguments, mention) in [(["a.mp4", "--frames", "0"], "--frames must be 1"),
                                     (["a.mp4", "--scenes"], "--scenes"),
                                     (["a.mp4", "b.mp4", "--frames", "2", "-o", "one.jpg"], "{stem}"),
                                     (["a.mp4", "--frames", "2", "--sheets", "-o", "{n}.jpg"], "--sheets")] {
            let result = try collage(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.summary)")
            XCTAssertTrue(result.stderrText.contains(mention), "\(arguments): \(result.stderrText)")
        }
    }

    func testAFileWithNoVideoIsAClearLineAndTheRunGoesOn() throws {
        try film("a.mp4", shots: 2)
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=2", "-c:a", "aac", path("tone.m4v")])
        let result = try collage(["a.mp4", "tone.m4v", "--frames", "2", "--json", "-o", "{stem}.png"])
        XCTAssertEqual(result.status, 65, result.summary)
        let all = assertValidEventStream(result, "no video")
        XCTAssertEqual(events(all, "failed").map { $0["path"] as? String }, ["tone.m4v"])
        XCTAssertEqual(events(all, "written").map { $0["output"] as? String }, ["a.png"])
    }
}

/// `--every SECONDS` and `--vtt PATH`: seek-bar sprites and their cues.
final class FilmSeekBarTests: CLITestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        guard haveProgram("ffmpeg") else { throw XCTSkip("needs ffmpeg") }
    }

    func testEveryTwoSecondsOverSheetsWithCuesPointingAtEachTile() throws {
        // Six 2-second shots: frames at 0, 2, …, 10 s, four a sheet.
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-filter_complex",
                                     (0..<6).map { index in
                                         let c = FilmTests.colours[index]
                                         return String(format: "color=c=0x%02X%02X%02X:s=320x240:r=25:d=2,", c.red, c.green, c.blue)
                                             + "drawbox=x=\(120 + index % 4 * 50):y=20:w=60:h=90:c=white:t=fill[s\(index)];"
                                     }.joined() + "[s0][s1][s2][s3][s4][s5]concat=n=6:v=1:a=0,format=yuv420p",
                                     "-c:v", "libx264", path("film.mp4")])
        makeFolder("thumbs")
        let result = try collage(["film.mp4", "--every", "2", "--max", "4", "--json", "-o", "thumbs/film-{n}.png",
                                  "--vtt", "thumbs/film.vtt"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "every")
        XCTAssertEqual(events(all, "written").compactMap { $0["output"] as? String },
                       ["thumbs/film-0001.png", "thumbs/film-0002.png"])
        let placed = events(all, "placed")
        XCTAssertEqual(placed.count, 6)
        let vtt = String(decoding: try XCTUnwrap(contents("thumbs/film.vtt"), "the cues"), as: UTF8.self)
        let blocks = vtt.components(separatedBy: "\n\n")
        XCTAssertEqual(blocks.first, "WEBVTT")
        let cues = blocks.dropFirst().map { $0.split(separator: "\n").map(String.init) }
        XCTAssertEqual(cues.count, 6, vtt)
        for (index, cue) in cues.enumerated() where cue.count == 2 {
            let start = String(format: "00:00:%02d.000", index * 2), end = String(format: "00:00:%02d.000", index * 2 + 2)
            XCTAssertEqual(cue[0], "\(start) --> \(end)")
            let tile = placed[index]
            let sheet = index < 4 ? "film-0001.png" : "film-0002.png"
            XCTAssertEqual(cue[1], "\(sheet)#xywh=\(tile["x"] as! Int),\(tile["y"] as! Int),\(tile["width"] as! Int),\(tile["height"] as! Int)",
                           "the tile placed, on its sheet, relative to the cues' folder")
            // The tile shows the shot of its time (the first, at 0 s, too).
            let picture = try XCTUnwrap(decoded("thumbs/" + sheet))
            let (x, y, w, h) = (tile["x"] as! Int, tile["y"] as! Int, tile["width"] as! Int, tile["height"] as! Int)
            XCTAssertColour(picture.pixel(x: x + w / 10, y: y + h * 9 / 10), FilmTests.colours[index], tolerance: 30,
                            "cue \(index)")
        }
    }

    func testUsageErrors() throws {
        try TestMedia.video(path("a.mp4"), seconds: 2, black: 0)
        for (arguments, mention) in [(["a.mp4", "--every", "0"], "--every must be"),
                                     (["a.mp4", "--every", "2", "--frames", "3"], "--every"),
                                     (["a.mp4", "--vtt", "a.vtt"], "--vtt"),
                                     (["a.mp4", "a.mp4", "--every", "2", "-o", "{n}.jpg"], "{stem}")] {
            let result = try collage(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.summary)")
            XCTAssertTrue(result.stderrText.contains(mention), "\(arguments): \(result.stderrText)")
        }
    }
}
