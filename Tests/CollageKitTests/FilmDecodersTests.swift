import CollageKit
import CollageTestSupport
import Glibc
import Media
import Video
import Vips
import XCTest

/// A film's frames found by two decoders at once (each a run of the times)
/// are the frames one decoder finds: the same times, the same pixels; and
/// as many decoders run as the room allows.
final class FilmDecodersTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// A film FFmpeg encodes from `input` (its arguments) with x264 and `settings`.
    private func film(_ input: [String], _ settings: [String]) throws -> String {
        let film = folder.file("moving.mp4")
        try TestMedia.run("ffmpeg", ["-v", "error", "-y"] + input + ["-pix_fmt", "yuv420p", "-c:v", "libx264"]
                          + settings + [film])
        return film
    }

    /// `body`'s result on the film opened read-only.
    private func opened<T>(_ film: String, _ body: (Int32) throws -> T) throws -> T {
        let descriptor = open(film, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("\(film) could not be opened") }
        defer { close(descriptor) }
        return try body(descriptor)
    }

    func testTwoDecodersFindWhatOneFinds() throws {
        // A moving pattern, a keyframe a second, B-frames: each time's frame differs.
        let film = try film(["-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=8"], ["-g", "25", "-bf", "2"])
        func tiles(_ decoders: Int) throws -> FilmTiles {
            try opened(film) {
                try MediaFile.filmTiles(descriptor: $0, count: 8, decoders: decoders,
                                        cellSize: { _ in (160, 90) }, crop: .centre, background: .white)
            }
        }
        let one = try tiles(1), two = try tiles(2)
        XCTAssertNil(one.stopped)
        XCTAssertNil(two.stopped)
        XCTAssertEqual(one.tiles.count, 8)
        XCTAssertEqual(two.tiles.map(\.time), one.tiles.map(\.time))
        XCTAssertEqual(Set(one.tiles.map(\.time)).count, 8, "eight distinct frames")
        for (a, b) in zip(one.tiles, two.tiles) {
            let same = a.pixels.withUnsafeBytes { x in b.pixels.withUnsafeBytes { y in x.elementsEqual(y) } }
            XCTAssertTrue(same, "the frame at \(a.time) s")
        }
    }

    /// A film is opened once a run of its times: the handle opened for its
    /// facts (and its shots) finds the first run (`VideoFile.opened`, the
    /// owner's count; three opens for two runs before).
    func testAFilmIsOpenedOnceARun() throws {
        // Eight static shots of a second, each its own colour and grid (x264 keys each).
        let looks = [("0x802020", 40), ("0x20A040", 80), ("0x2040C0", 20), ("0xC0A030", 160), ("0x606060", 60),
                     ("0xE0E0E0", 30), ("0x303030", 120), ("0xA020A0", 50)]
        let graph = looks.enumerated().map { index, look in
            "color=c=\(look.0):s=320x180:r=25:d=1,drawgrid=w=\(look.1):h=\(look.1):t=6:c=white[s\(index)];"
        }.joined() + (0..<8).map { "[s\($0)]" }.joined() + "concat=n=8:v=1:a=0"
        let film = try film(["-filter_complex", graph], ["-bf", "2"])
        for (decoders, scenes) in [(1, false), (2, false), (2, true)] {
            let before = VideoFile.opened
            let found = try opened(film) {
                try MediaFile.filmTiles(descriptor: $0, count: 8, scenes: scenes, decoders: decoders,
                                        cellSize: { _ in (80, 45) }, crop: .centre, background: .white)
            }
            XCTAssertEqual(found.tiles.count, 8, "scenes \(scenes)")
            XCTAssertEqual(VideoFile.opened - before, decoders, "\(decoders) run(s), scenes \(scenes)")
        }
    }

    /// A 1080p H.264 film as encoders write it (x264 veryfast with
    /// B-frames: 4 reference frames and 2 reordered, 9 pictures of 4.7 MB
    /// by the estimate) is found by two decoders where the room allows two
    /// (before, two needed 0.1% more than the limit, and a folder of such
    /// films ran on one core); with room for one forward decode, by one.
    func testA1080pFilmWithBFramesIsFoundByTwoDecoders() throws {
        let film = try film(["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=2"], ["-preset", "veryfast", "-g", "30"])
        let info = try opened(film) { try VideoFile(descriptor: $0, seconds: 10, maxBytes: 1 << 30).info }
        XCTAssertEqual(info.referenceFrames, 6, "4 reference frames and 2 reordered, as the stream declares")
        let forward = info.forwardDecodeBytes
        for (room, expected) in [(CollageConfiguration.defaultDecodeMemoryMiB << 20, 2), (forward * 3 / 2, 1)] {
            let before = VideoFile.opened
            let found = try opened(film) {
                try MediaFile.filmTiles(descriptor: $0, count: 8, decoders: 2, forwardLimit: room,
                                        cellSize: { _ in (160, 90) }, crop: .centre, background: .white)
            }
            XCTAssertEqual(found.tiles.count, 8)
            XCTAssertEqual(VideoFile.opened - before, expected, "room \(room >> 20) MiB")
            XCTAssertEqual(MediaFile.forwardDecoders(forward, within: room, decoders: 2), expected)
        }
    }
}
