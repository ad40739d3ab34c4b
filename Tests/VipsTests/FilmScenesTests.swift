import CollageTestSupport
import FileFacts
import Media
import Video
import XCTest
@testable import Vips

/// A film's most distinct shots (`VideoFile.sceneTimes`), from a pass over
/// keyframes: films of static shots made here with ffmpeg (x264 puts a
/// keyframe at each cut), each shot a grid of its own size and brightness.
final class FilmScenesTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        if let missing = MediaFile.videoUnavailable { throw XCTSkip(missing) }
        folder = try TemporaryDirectory()
    }

    /// Static shots of `lengths` seconds (2 s each by default), a fade
    /// from black into the first.
    private func film(_ path: String, shots: Int, lengths: [Int]? = nil) throws {
        let looks = [("0x802020", 40), ("0x20A040", 80), ("0x2040C0", 20), ("0xC0A030", 160), ("0x606060", 60),
                     ("0xE0E0E0", 30), ("0x303030", 120), ("0xA020A0", 50)]
        var graph = (0..<shots).map { index in
            let (colour, size) = looks[index % looks.count]
            return "color=c=\(colour):s=320x240:r=25:d=\(lengths?[index] ?? 2),drawgrid=w=\(size):h=\(size):t=6:c=white[s\(index)];"
        }.joined()
        graph += (0..<shots).map { "[s\($0)]" }.joined() + "concat=n=\(shots):v=1:a=0,fade=in:d=0.5,format=yuv420p"
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-filter_complex", graph, "-c:v", "libx264", path])
    }

    private func scenes(_ path: String, _ count: Int) throws -> [Double] {
        try withDescriptor(path) { descriptor in
            try VideoFile(descriptor: descriptor, seconds: 20, maxBytes: 64 << 20).sceneTimes(count: count)
        }
    }

    func testNDistinctShotsInTimeOrderNeverTheSameShotTwice() throws {
        let path = folder.file("eight.mp4")
        try film(path, shots: 8)
        let times = try scenes(path, 4)
        XCTAssertEqual(times.count, 4)
        XCTAssertEqual(times, times.sorted(), "in time order")
        let shots = times.map { Int($0 / 2) }
        XCTAssertEqual(Set(shots).count, 4, "four shots, none twice: \(times)")
    }

    /// One long shot and four short ones: times spread evenly (as vcsi
    /// takes them: 1.5, 4.5, 7.5, 10.5 s) would show the long shot three
    /// times; the most distinct shots show four different ones.
    func testALongShotIsShownOnce() throws {
        let path = folder.file("long.mp4")
        try film(path, shots: 5, lengths: [8, 1, 1, 1, 1])
        let starts = [0.0, 8, 9, 10, 11]
        let times = try scenes(path, 4)
        let shots = times.map { time in starts.lastIndex { $0 <= time }! }
        XCTAssertEqual(Set(shots).count, 4, "\(times)")
        XCTAssertEqual(times, times.sorted())
        XCTAssertEqual(shots.filter { $0 == 0 }.count, 1, "the long shot once: \(times)")
    }

    /// Three shots of 2 s for 6 frames: each shot once, then the rest
    /// spread over the shots, at distinct times, in order: every shot
    /// shown, none more than three times.
    func testAFilmOfFewerShotsStillGivesNFramesEachShotFirst() throws {
        let path = folder.file("three.mp4")
        try film(path, shots: 3)
        let times = try scenes(path, 6)
        XCTAssertEqual(times.count, 6, "\(times)")
        XCTAssertEqual(times, times.sorted())
        XCTAssertEqual(Set(times).count, 6, "\(times)")
        let counts = [0, 1, 2].map { shot in times.filter { Int($0 / 2) == shot }.count }
        XCTAssertTrue(counts.allSatisfy { (1...3).contains($0) }, "every shot shown, none crowding: \(times)")
    }

    func testFramesAreSharedOutEachShotOnceThenByLength() {
        XCTAssertEqual(VideoFile.shares([4, 1, 2], count: 6), [3, 1, 2])
        XCTAssertEqual(VideoFile.shares([5], count: 6), [6])
        XCTAssertEqual(VideoFile.shares([1, 1, 1], count: 2), [1, 1, 1], "never fewer than one a shot")
    }

    func testAFadeKeepsAShotOneShapeFromAnother() {
        let bars = (0..<64).map { UInt8($0 % 8 < 4 ? 200 : 40) }
        let faded = bars.map { UInt8(Double($0) * 0.5) }
        let squares = (0..<64).map { UInt8(($0 / 8) % 2 == 0 ? 200 : 40) }
        XCTAssertEqual(VideoFile.distance(bars, bars), 0)
        XCTAssertLessThan(VideoFile.distance(bars, faded), VideoFile.shotDistance, "a fade: the same shot")
        XCTAssertGreaterThan(VideoFile.distance(bars, squares), VideoFile.shotDistance * 3, "another shot")
        XCTAssertEqual(VideoFile.distance([1, 2], [1]), .infinity)
    }

    /// A 2-minute film of 6 shots of 20 s keyed every 10 s (no keyframe at
    /// its cuts, no B-frames: every frame a reference): each sample of the
    /// pass whose keyframe is more than `sceneReach` before it is that
    /// keyframe, so the pass decodes 520 frames, not the 2024 a decode
    /// forward to each of its 16 times took (the pass of a 20-minute 1080p
    /// film keyed every 10 s ran past the film's time limit that way), and
    /// still finds 4 distinct shots.
    func testALongGOPFilmsPassDecodesItsKeyframesNotTheFilm() throws {
        let path = folder.file("long-gop.mp4")
        let looks = ["0x802020", "0x20A040", "0x2040C0", "0xC0A030", "0xE0E0E0", "0xA020A0"]
        let sizes = [40, 80, 20, 160, 30, 50]
        var graph = looks.indices.map { index in
            "color=c=\(looks[index]):s=64x48:r=25:d=20,drawgrid=w=\(sizes[index] / 4):h=\(sizes[index] / 4):t=2:c=white[s\(index)];"
        }.joined()
        graph += looks.indices.map { "[s\($0)]" }.joined() + "concat=n=6:v=1:a=0,format=yuv420p"
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-filter_complex", graph, "-c:v", "libx264", "-bf", "0",
                                     "-x264-params", "keyint=250:min-keyint=250:scenecut=0", path])
        let (times, decoded) = try withDescriptor(path) { descriptor in
            let video = try VideoFile(descriptor: descriptor, seconds: 20, maxBytes: 64 << 20)
            return (try video.sceneTimes(count: 4), video.framesGiven)
        }
        XCTAssertEqual(times.count, 4, "\(times)")
        XCTAssertEqual(Set(times.map { Int($0 / 20) }).count, 4, "four shots, none twice: \(times)")
        XCTAssertLessThan(decoded, 16 * 2 * 25, "at most 4 s of frames a sample, mostly one: \(decoded) decoded")
        print("long GOP: \(decoded) frames decoded for 16 samples, times \(times)")
    }
}
