import CollageTestSupport
import Foundation
import Vips
import XCTest

/// How a film is decoded and which frames stand for its times, through
/// the binary, with clips made here by FFmpeg: a phone's 4K HDR video
/// (HEVC Main 10 HLG keyed every second, B-frames) within the memory every
/// run promises, read by the test from /proc (never timed); a film of
/// shots each followed by seconds of black, with no near-black tile; a
/// short single-shot clip of real animation under `--scenes`.
final class FilmDecodeTests: CLITestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        guard haveProgram("ffmpeg") else { throw XCTSkip("needs ffmpeg") }
    }

    /// A phone's 4K HDR clip (`TestFilms.phone4KHLG`).
    private func phoneClip(_ name: String) throws { try TestFilms.phone4KHLG(path(name)) }

    /// The poster and a sheet of 4 frames each stay under 160 MiB (they
    /// peaked at 449 and 414 MiB for such a clip when its keyframes were
    /// decoded by FFmpeg's skip_frame); the sheet's frames are its distinct
    /// keyframes, each within half a GOP (0.5 s) of a time asked, the
    /// fewer said by a notice.
    func testAPhones4KHLGClipKeyedEverySecondStaysWithinTheRunsMemory() throws {
        try phoneClip("phone.mp4")
        let poster = try measuredCollage(["--video", "phone.mp4", "--json", "-o", "poster.png"])
        XCTAssertEqual(poster.result.status, 0, poster.result.summary)
        XCTAssertLessThan(poster.maxRSSMegabytes, 160, "the poster: the run's promise")
        print("4K HLG poster: peak \(Int(poster.maxRSSMegabytes)) MiB")

        let run = try measuredCollage(["phone.mp4", "--frames", "4", "--json", "-o", "sheet.png"])
        XCTAssertEqual(run.result.status, 0, run.result.summary)
        XCTAssertLessThan(run.maxRSSMegabytes, 160, "the sheet: the run's promise")
        print("4K HLG --frames 4: peak \(Int(run.maxRSSMegabytes)) MiB")
        let all = jsonEvents(run.result)
        let times = events(all, "frame").compactMap { $0["time"] as? Double }
        // Asked at 0.375, 1.125, 1.875, 2.625 s; keyframes at 0, 1 and 2 s.
        XCTAssertEqual(times, [0, 1, 2], "the nearest keyframes, each once")
        let asked = [0.375, 1.125, 1.875, 2.625]
        for time in times {
            XCTAssertTrue(asked.contains { abs($0 - time) <= 0.5 }, "\(time) within half a GOP of a time asked")
        }
        let notices = events(all, "notice").compactMap { $0["message"] as? String }
        XCTAssertTrue(notices.contains { $0.contains("3 distinct frame(s) for 4 times") }, "\(notices)")
        // The frames are the film's, not grey: FFmpeg's pattern is bright and varied.
        let sheet = try XCTUnwrap(decoded("sheet.png"))
        for placed in events(all, "placed") {
            let (x, y, w, h) = (placed["x"] as! Int, placed["y"] as! Int, placed["width"] as! Int, placed["height"] as! Int)
            let samples = (1...7).flatMap { i in (1...7).map { j in sheet.pixel(x: x + w * i / 8, y: y + h * j / 8) } }
            let distinct = Set(samples.map { "\($0.red)/\($0.green)/\($0.blue)" })
            XCTAssertGreaterThan(distinct.count, 4, "a tile of the pattern, not a flat grey one")
        }
    }

    /// The black seconds after each shot of `film` (2 to 3.5 s), as
    /// (start, end) times.
    private static let blackAfter = [2.0, 3.5, 2.5, 3.0, 2.2, 3.3, 2.8, 2.0, 3.5, 2.6, 3.1, 2.4, 2.9, 3.2]

    /// A two-minute film at 320x180: 14 shots of FFmpeg's moving pattern,
    /// each followed by 2-3.5 s of black (`blackAfter`). Its black spans.
    private func blackGapsFilm(_ name: String) throws -> [(Double, Double)] {
        let shot = (120 - Self.blackAfter.reduce(0, +)) / Double(Self.blackAfter.count)
        var graph = ""
        var spans: [(Double, Double)] = []
        var time = 0.0
        for (index, black) in Self.blackAfter.enumerated() {
            graph += "testsrc2=s=320x180:r=25:d=\(shot)[s\(index)];color=c=black:s=320x180:r=25:d=\(black)[b\(index)];"
            time += shot
            spans.append((time, time + black))
            time += black
        }
        graph += Self.blackAfter.indices.map { "[s\($0)][b\($0)]" }.joined()
            + "concat=n=\(2 * Self.blackAfter.count):v=1:a=0,format=yuv420p"
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-filter_complex", graph, "-c:v", "libx264", "-preset",
                                     "ultrafast", path(name)])
        return spans
    }

    /// `--frames 16` of the film: frames 7.5 s apart, several of whose
    /// times fall in black a second or so after a shot ends: each tile is
    /// a lit frame from its neighbourhood (half the spacing either side),
    /// none in the black, none near-black on the sheet.
    func testNoNearBlackTileWhileALitFrameIsInItsNeighbourhood() throws {
        let spans = try blackGapsFilm("gaps.mp4")
        let result = try collage(["gaps.mp4", "--frames", "16", "--json", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = jsonEvents(result)
        let times = events(all, "frame").compactMap { $0["time"] as? Double }
        XCTAssertEqual(times.count, 16, "\(times)")
        let asked = (0..<16).map { 120 * (Double($0) + 0.5) / 16 }
        XCTAssertTrue(asked.contains { time in spans.contains { $0.0 + 0.3 < time && time < $0.1 } },
                      "some times asked fall in the black")
        for (time, target) in zip(times, asked) {
            XCTAssertFalse(spans.contains { $0.0 + 0.05 < time && time < $0.1 - 0.05 }, "\(time) s is in the black")
            XCTAssertLessThanOrEqual(abs(time - target), 7.5 / 2 + 0.05, "\(time) s: in the neighbourhood of \(target) s")
        }
        let sheet = try XCTUnwrap(decoded("sheet.png"))
        for placed in events(all, "placed") {
            let (x, y, w, h) = (placed["x"] as! Int, placed["y"] as! Int, placed["width"] as! Int, placed["height"] as! Int)
            let samples = (1...7).flatMap { i in (1...7).map { j in sheet.pixel(x: x + w * i / 8, y: y + h * j / 8) } }
            let mean = samples.reduce(0) { $0 + Int($1.red) + Int($1.green) + Int($1.blue) } / (3 * samples.count)
            XCTAssertGreaterThan(mean, 40, "a lit tile at \(placed["label"] ?? "?")")
        }
    }

    /// A 5 s single-shot clip of real animation (Megamind, from Debian's
    /// opencv-doc): `--frames 6 --scenes` gives 6 frames at distinct times
    /// spread over the shot, not the one shot once.
    func testScenesOnAFilmOfOneShotStillGiveNFrames() throws {
        let source = "/usr/share/doc/opencv-doc/examples/data/Megamind.avi"
        guard FileManager.default.fileExists(atPath: source) else { throw XCTSkip("needs opencv-doc's Megamind.avi") }
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-ss", "1", "-t", "5", "-i", source, "-an", "-c:v", "libx264",
                                     "-preset", "ultrafast", path("shot.mp4")])
        let result = try collage(["shot.mp4", "--frames", "6", "--scenes", "--json", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let times = events(jsonEvents(result), "frame").compactMap { $0["time"] as? Double }
        XCTAssertEqual(times.count, 6, "\(times)")
        XCTAssertEqual(Set(times).count, 6, "distinct frames: \(times)")
        XCTAssertEqual(times, times.sorted())
        XCTAssertGreaterThan((times.last ?? 0) - (times.first ?? 0), 2.5, "spread over the shot: \(times)")
    }
}
