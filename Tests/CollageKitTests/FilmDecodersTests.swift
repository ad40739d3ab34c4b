import CollageTestSupport
import Glibc
import Media
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
}
