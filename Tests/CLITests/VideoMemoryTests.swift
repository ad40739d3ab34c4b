import CollageTestSupport
import Foundation
import Vips
import XCTest

/// 4K video posters within the memory every run promises (160 MiB), shown
/// by the run's peak memory (VmHWM of the child), never by a clock: a 4K
/// HEVC's full decode holds its whole reference set (a run peaked at 208
/// MiB for 8-bit, 280 MiB for 10-bit HLG), so such a video is decoded
/// keyframes alone and its poster shrunk by swscale as it is converted.
final class VideoMemoryTests: CLITestCase {
    /// A 4K HEVC (libx265, B-frames and references as its fastest preset
    /// makes them) of FFmpeg's moving test pattern: 8-bit SDR, 2 s at 25
    /// frames a second, one keyframe; or a phone's 10-bit HLG clip in
    /// BT.2020 keyed every second (`TestFilms.phone4KHLG`, which
    /// FilmDecodeTests decodes too).
    private func film4K(_ name: String, hlg: Bool) throws {
        if hlg { return try TestFilms.phone4KHLG(path(name)) }
        let arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=3840x2160:r=25:d=2",
                         "-pix_fmt", "yuv420p", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"]
        // Made once a run: both tests' SDR film is the same.
        try SharedFixture.copy("ffmpeg " + arguments.joined(separator: " "), to: path(name)) { made in
            try TestMedia.run("ffmpeg", arguments + ["-f", "mp4", made])
        }
    }

    func test4KAnd10BitHLGPostersStayWithinTheRunsMemory() throws {
        try film4K("sdr-4k.mp4", hlg: false)
        try film4K("hlg-4k.mp4", hlg: true)
        for name in ["sdr-4k.mp4", "hlg-4k.mp4"] {
            let run = try measuredCollage(["--video", name, "--json", "-o", "\(name).png"])
            XCTAssertEqual(run.result.status, 0, run.result.summary)
            let all = jsonEvents(run.result)
            XCTAssertEqual(events(all, "written").first?["images"] as? [String], [name], run.result.summary)
            XCTAssertLessThan(run.maxRSSMegabytes, 160, "\(name): the run's promise")
            print("\(name): peak \(Int(run.maxRSSMegabytes)) MiB")
        }
        // Both at once, as a folder: the decode budget holds them one after the other or together, never over.
        makeFolder("both")
        try FileManager.default.moveItem(atPath: path("sdr-4k.mp4"), toPath: path("both/sdr-4k.mp4"))
        try FileManager.default.moveItem(atPath: path("hlg-4k.mp4"), toPath: path("both/hlg-4k.mp4"))
        let run = try measuredCollage(["--video", "both", "--json", "-o", "both.png"])
        XCTAssertEqual(run.result.status, 0, run.result.summary)
        XCTAssertLessThan(run.maxRSSMegabytes, 160, "two 4K videos in one run")
        print("both: peak \(Int(run.maxRSSMegabytes)) MiB")
    }

    /// A 4K film decoded at its keyframes alone whose one keyframe is at
    /// 0 s (x265's default interval, 250 frames, in a film of 50): `--frames 4`
    /// shows that frame once, in a larger cell, and says why there are
    /// fewer, never the same frame four times.
    func testA4KFilmWithFewerKeyframesThanFramesShowsEachOnce() throws {
        try film4K("one-keyframe.mp4", hlg: false)
        let run = try measuredCollage(["one-keyframe.mp4", "--frames", "4", "--json", "-o", "sheet.png"])
        XCTAssertEqual(run.result.status, 0, run.result.summary)
        let all = jsonEvents(run.result)
        let times = events(all, "frame").compactMap { $0["time"] as? Double }
        XCTAssertEqual(times.count, 1, "one keyframe, one tile: \(times)")
        XCTAssertEqual(Set(times).count, times.count)
        let notices = events(all, "notice").compactMap { $0["message"] as? String }
        XCTAssertTrue(notices.contains { $0.contains("1 distinct frame(s) for 4 times") }, "\(notices)")
        XCTAssertLessThan(run.maxRSSMegabytes, 160, "the run's promise")
    }
}
