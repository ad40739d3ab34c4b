import CollageTestSupport
import FileFacts
import Media
import Video
import XCTest
@testable import Vips

/// A film's frames (`VideoFile.frames`): N times spread over it, each the
/// best of a few candidates from its time on, never near-black or blurred
/// while a better one is near; and what a film's header says. The films
/// are made here with ffmpeg: static shots of known colours.
final class FilmFramesTests: XCTestCase {
    private var folder: TemporaryDirectory!
    /// Four shots of 3 s, each a colour under a white grid.
    private let shots = [RGB(red: 0xC0, green: 0x30, blue: 0x30), RGB(red: 0x30, green: 0xA0, blue: 0x40),
                         RGB(red: 0x30, green: 0x50, blue: 0xC0), RGB(red: 0xC0, green: 0xA0, blue: 0x30)]

    override func setUpWithError() throws {
        if let missing = MediaFile.videoUnavailable { throw XCTSkip(missing) }
        folder = try TemporaryDirectory()
    }

    /// 12 s, 25 frames a second, a keyframe a second, AAC stereo beside it:
    /// black from 4.5 to 4.95 s, blurred from 7.5 to 7.95 s.
    private func film(_ path: String) throws {
        let hex = shots.map { String(format: "0x%02X%02X%02X", $0.red, $0.green, $0.blue) }
        var graph = hex.enumerated().map { index, colour in
            "color=c=\(colour):s=320x240:r=25:d=3,drawgrid=w=40:h=40:t=6:c=white[s\(index)];"
        }.joined()
        graph += "[s0][s1][s2][s3]concat=n=4:v=1:a=0,"
            + "drawbox=enable='between(t,4.5,4.95)':c=black:t=fill,"
            + "gblur=sigma=12:enable='between(t,7.5,7.95)',format=yuv420p"
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-filter_complex", graph, "-f", "lavfi", "-i",
                                     "sine=d=12", "-ac", "2", "-c:v", "libx264", "-g", "25", "-c:a", "aac",
                                     "-shortest", path])
    }

    private func open(_ path: String, _ body: (VideoFile) throws -> Void) throws {
        try withDescriptor(path) { descriptor in
            try body(try VideoFile(descriptor: descriptor, seconds: 20, maxBytes: 64 << 20))
        }
    }

    private func pixel(_ pixels: VideoPixels, _ x: Int, _ y: Int) -> RGB {
        let i = (y * pixels.width + x) * 3
        return RGB(red: pixels.bytes[i], green: pixels.bytes[i + 1], blue: pixels.bytes[i + 2])
    }

    func testTimesAreTheMiddlesOfEqualParts() {
        XCTAssertEqual(VideoFile.spreadTimes(count: 4, duration: 12), [1.5, 4.5, 7.5, 10.5])
        XCTAssertEqual(VideoFile.spreadTimes(count: 1, duration: 10), [5])
        XCTAssertEqual(VideoFile.spreadTimes(count: 3, duration: 0), [])
    }

    func testEachFrameIsItsShotNeverBlackOrBlurredWhileABetterOneIsNear() throws {
        let path = folder.file("film.mp4")
        try film(path)
        try open(path) { video in
            let times = VideoFile.spreadTimes(count: 4, duration: video.info.duration)
            let made = video.frames(at: times, coverWidth: 160, coverHeight: 120)
            XCTAssertNil(made.stopped)
            let frames = made.frames
            XCTAssertEqual(frames.map(\.target), [1.5, 4.5, 7.5, 10.5])
            for (index, frame) in frames.enumerated() {
                XCTAssertEqual([frame.pixels.width, frame.pixels.height], [320, 240])
                XCTAssertColour(pixel(frame.pixels, 20, 20), shots[index], tolerance: 12, "shot \(index + 1)")
                XCTAssertGreaterThanOrEqual(frame.time, frame.target - 0.05)
                XCTAssertLessThanOrEqual(frame.time, frame.target + 1.5)
            }
            XCTAssertEqual(frames[0].time, 1.5, accuracy: 0.05, "a good frame at its time: that one")
            XCTAssertEqual(frames[0].passedOver, [])
            XCTAssertGreaterThan(frames[1].time, 4.95, "after the black")
            XCTAssertEqual(frames[1].passedOver.map(\.reason), [.nearBlack, .nearBlack])
            XCTAssertGreaterThan(frames[2].time, 7.95, "after the blur")
            XCTAssertEqual(frames[2].passedOver.map(\.reason), [.blurred, .blurred])
        }
    }

    /// An MPEG-TS film (no index: sought by its bytes, which lands past
    /// the keyframe before a time) with a keyframe every 3 s: each frame is
    /// its shot, at its time or within its window, the last one too (the
    /// seek near the end had landed where no keyframe follows: "no frame").
    func testAFilmWithoutAnIndexGivesEachFrameAtItsTime() throws {
        let mp4 = folder.file("film.mp4"), ts = folder.file("film.ts")
        try film(mp4)
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-i", mp4, "-an", "-c:v", "libx264", "-g", "75",
                                     "-pix_fmt", "yuv420p", ts])
        try open(ts) { video in
            let times = VideoFile.spreadTimes(count: 8, duration: video.info.duration)
            let made = video.frames(at: times, coverWidth: 160, coverHeight: 120)
            XCTAssertNil(made.stopped)
            XCTAssertEqual(made.frames.map(\.target), times)
            for (index, frame) in made.frames.enumerated() {
                XCTAssertGreaterThanOrEqual(frame.time, frame.target - 0.05, "frame \(index + 1)")
                XCTAssertLessThanOrEqual(frame.time, frame.target + 0.76, "frame \(index + 1): within its window")
                XCTAssertColour(pixel(frame.pixels, 20, 20), shots[min(3, Int(frame.time / 3))], tolerance: 12,
                                "frame \(index + 1) at \(frame.time) s")
            }
        }
    }

    /// A film cut short (its index at the start, its end gone): the
    /// frames before the cut, and why there are no more.
    func testATruncatedFilmGivesItsFramesUpToTheCut() throws {
        let whole = folder.file("whole.mp4")
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=10",
                                     "-c:v", "libx264", "-g", "25", "-movflags", "+faststart", whole])
        let bytes = try readBytes(whole)
        let cut = folder.file("cut.mp4")
        try writeBytes(Array(bytes.prefix(bytes.count * 6 / 10)), to: cut)
        try open(cut) { video in
            XCTAssertEqual(video.info.duration, 10, accuracy: 0.1, "the index still says 10 s")
            let made = video.frames(at: VideoFile.spreadTimes(count: 5, duration: 10), coverWidth: 160, coverHeight: 120)
            XCTAssertGreaterThanOrEqual(made.frames.count, 2, "the frames before the cut: \(made.frames.map(\.time))")
            XCTAssertLessThan(made.frames.count, 5)
            XCTAssertNotNil(made.stopped)
            XCTAssertEqual(made.frames.map(\.target), Array([1.0, 3, 5, 7, 9].prefix(made.frames.count)))
            XCTAssertEqual(made.frames.map { $0.pixels.width }, Array(repeating: 320, count: made.frames.count))
        }
    }

    func testTheHeadersFacts() throws {
        let path = folder.file("film.mp4")
        try film(path)
        try open(path) { video in
            let info = video.info
            XCTAssertEqual(info.frameRate, 25, accuracy: 0.01)
            XCTAssertEqual(info.codec, "h264")
            XCTAssertEqual(info.audioCodec, "aac")
            XCTAssertEqual(info.audioChannels, 2)
            XCTAssertGreaterThan(info.bitRate, 1000)
            XCTAssertEqual(info.duration, 12, accuracy: 0.1)
        }
        let silent = folder.file("silent.mp4")
        try TestMedia.video(silent, seconds: 2, black: 0)
        try open(silent) { video in
            XCTAssertEqual(video.info.audioCodec, "")
            XCTAssertEqual(video.info.audioChannels, 0)
        }
    }
}
