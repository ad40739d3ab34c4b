import CollageKit
import CollageTestSupport
import Glibc
import Media
import Video
import Vips
import XCTest

/// A film's frames found by two decoders at once (each a run of the times)
/// are the frames one decoder finds: the same times, the same pixels.
final class FilmDecodersTests: XCTestCase {
    func testTwoDecodersFindWhatOneFinds() throws {
        try Vips.start()
        let folder = try TemporaryDirectory()
        let film = folder.file("moving.mp4")
        // A moving pattern, a keyframe a second, B-frames: each time's frame differs.
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=8",
                                     "-pix_fmt", "yuv420p", "-c:v", "libx264", "-g", "25", "-bf", "2", film])
        func tiles(_ decoders: Int) throws -> FilmTiles {
            let descriptor = open(film, O_RDONLY)
            XCTAssertGreaterThanOrEqual(descriptor, 0)
            defer { close(descriptor) }
            return try MediaFile.filmTiles(descriptor: descriptor, count: 8, decoders: decoders,
                                           cellSize: { _ in (160, 90) }, crop: .centre, background: .white)
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
        try Vips.start()
        let folder = try TemporaryDirectory()
        let film = folder.file("moving.mp4")
        // Eight static shots of a second, each its own colour and grid (x264 keys each).
        let looks = [("0x802020", 40), ("0x20A040", 80), ("0x2040C0", 20), ("0xC0A030", 160), ("0x606060", 60),
                     ("0xE0E0E0", 30), ("0x303030", 120), ("0xA020A0", 50)]
        let graph = looks.enumerated().map { index, look in
            "color=c=\(look.0):s=320x180:r=25:d=1,drawgrid=w=\(look.1):h=\(look.1):t=6:c=white[s\(index)];"
        }.joined() + (0..<8).map { "[s\($0)]" }.joined() + "concat=n=8:v=1:a=0,format=yuv420p"
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-filter_complex", graph, "-c:v", "libx264", "-bf", "2", film])
        for (decoders, scenes) in [(1, false), (2, false), (2, true)] {
            let descriptor = open(film, O_RDONLY)
            XCTAssertGreaterThanOrEqual(descriptor, 0)
            defer { close(descriptor) }
            let before = VideoFile.opened
            let found = try MediaFile.filmTiles(descriptor: descriptor, count: 8, scenes: scenes, decoders: decoders,
                                                cellSize: { _ in (80, 45) }, crop: .centre, background: .white)
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
        try Vips.start()
        let folder = try TemporaryDirectory()
        let film = folder.file("phone.mp4")
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=2",
                                     "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-g", "30", film])
        let probe = open(film, O_RDONLY)
        XCTAssertGreaterThanOrEqual(probe, 0)
        let info = try VideoFile(descriptor: probe, seconds: 10, maxBytes: 1 << 30).info
        close(probe)
        XCTAssertEqual(info.referenceFrames, 6, "4 reference frames and 2 reordered, as the stream declares")
        let forward = info.forwardDecodeBytes
        for (room, expected) in [(CollageConfiguration.defaultDecodeMemoryMiB << 20, 2), (forward * 3 / 2, 1)] {
            let descriptor = open(film, O_RDONLY)
            XCTAssertGreaterThanOrEqual(descriptor, 0)
            defer { close(descriptor) }
            let before = VideoFile.opened
            let found = try MediaFile.filmTiles(descriptor: descriptor, count: 8, decoders: 2, forwardLimit: room,
                                                cellSize: { _ in (160, 90) }, crop: .centre, background: .white)
            XCTAssertEqual(found.tiles.count, 8)
            XCTAssertEqual(VideoFile.opened - before, expected, "room \(room >> 20) MiB")
            XCTAssertEqual(MediaFile.forwardDecoders(forward, within: room, decoders: 2), expected)
        }
    }
}
