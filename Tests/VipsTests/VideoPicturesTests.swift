import CollageTestSupport
import FileFacts
import Media
import XCTest
@testable import Vips

/// Videos through the `Media` door: made here with ffmpeg's lavfi sources,
/// read by FFmpeg's libraries. The poster is the first frame at a tenth of
/// the length that is neither near-black nor flat; its tile follows the
/// stream's rotation and carries a play mark; bad files fail with FFmpeg's
/// reason, quickly.
final class VideoPicturesTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let video = MediaOptions(video: true)

    override func setUpWithError() throws {
        if let missing = MediaFile.videoUnavailable { throw XCTSkip(missing) }
        folder = try TemporaryDirectory()
    }

    private func header(_ path: String, options: MediaOptions? = nil) throws -> ImageHeader {
        try withDescriptor(path) { try MediaFile.header(descriptor: $0, options: options ?? video) }
    }

    private func tile(_ path: String, _ width: Int, _ height: Int) throws -> MediaTile {
        let header = try header(path)
        return try withDescriptor(path) {
            try MediaFile.tile(descriptor: $0, width: width, height: height, background: .white, header: header)
        }
    }

    func testThePosterSkipsTheBlackLeadIn() throws {
        let path = folder.file("lead.mp4")
        try TestMedia.video(path, seconds: 10, black: 2)
        let header = try header(path)
        XCTAssertEqual([header.width, header.height, header.orientation], [320, 240, 1])
        XCTAssertEqual(header.duration ?? 0, 10, accuracy: 0.1)
        XCTAssertEqual(header.format, "video")
        let made = try tile(path, 200, 150)
        XCTAssertTile(made.pixels, width: 200, height: 150)
        let time = try XCTUnwrap(made.frameTime)
        XCTAssertGreaterThanOrEqual(time, 2, "a tenth in (1 s) is black: a later frame")
        XCTAssertLessThanOrEqual(time, 3.1)
        XCTAssertColour(made.pixels.pixel(x: 20, y: 75), TestMedia.left, tolerance: 14)
        XCTAssertColour(made.pixels.pixel(x: 180, y: 75), TestMedia.right, tolerance: 14)
    }

    func testATenthInWhenItShowsSomething() throws {
        let path = folder.file("plain.mp4")
        try TestMedia.video(path, seconds: 10, black: 0)
        XCTAssertEqual(try tile(path, 200, 150).frameTime ?? -1, 1, accuracy: 0.05)
        let long = folder.file("long.mp4")
        try TestMedia.video(long, seconds: 60, black: 0)
        XCTAssertEqual(try tile(long, 200, 150).frameTime ?? -1, 3, accuracy: 0.05, "at most 3 s in")
    }

    func testThePlayMarkIsOnTheTile() throws {
        let path = folder.file("plain.mp4")
        try TestMedia.video(path, seconds: 4, black: 0)
        let pixels = try tile(path, 200, 150).pixels
        // The triangle is white just left of the centre; the disc around it darkens.
        XCTAssertColour(pixels.pixel(x: 98, y: 75), .white, tolerance: 30, "the triangle")
        let disc = pixels.pixel(x: 100, y: 75 - 18)
        XCTAssertLessThan(Int(disc.red) + Int(disc.green) + Int(disc.blue), 200, "the dark disc: \(disc)")
    }

    func testTheStreamsRotationMakesItPortrait() throws {
        let plain = folder.file("plain.mp4"), turned = folder.file("turned.mp4")
        try TestMedia.video(plain, seconds: 4, black: 0)
        try TestMedia.rotated(plain, to: turned)
        let header = try header(turned)
        XCTAssertEqual([header.displayedWidth, header.displayedHeight], [240, 320])
        XCTAssertTrue(header.isPortrait)
        // As ffmpeg shows it: the stored right half on top.
        let pixels = try tile(turned, 150, 200).pixels
        XCTAssertColour(pixels.pixel(x: 75, y: 20), TestMedia.right, tolerance: 14)
        XCTAssertColour(pixels.pixel(x: 75, y: 180), TestMedia.left, tolerance: 14)
    }

    func testAOneFrameVideoShowsItsFrame() throws {
        let path = folder.file("one.mp4")
        try TestMedia.video(path, seconds: 0.04, black: 0, extra: ["-frames:v", "1"])
        let made = try tile(path, 160, 120)
        XCTAssertEqual(made.frameTime ?? -1, 0, accuracy: 0.001)
        XCTAssertColour(made.pixels.pixel(x: 10, y: 60), TestMedia.left, tolerance: 14)
    }

    func testAFlatVideoStillGivesTheBestFrameSeen() throws {
        let path = folder.file("black.mp4")
        try TestMedia.video(path, seconds: 6, black: 6)
        let made = try tile(path, 160, 120)
        XCTAssertColour(made.pixels.pixel(x: 10, y: 10), .black, tolerance: 8)
    }

    func testBadVideosFailWithFFmpegsReason() throws {
        let whole = folder.file("whole.mp4")
        try TestMedia.video(whole, seconds: 4, black: 0)  // the index (moov) at the end
        let bytes = try readBytes(whole)
        let cut = folder.file("cut.mp4")
        try writeBytes(Array(bytes.prefix(bytes.count / 2)), to: cut)
        XCTAssertThrowsError(try header(cut)) { error in
            XCTAssertEqual((error as? VipsError)?.code, .load)
            XCTAssertTrue("\(error)".contains("moov atom not found"), "\(error)")
        }
        let audio = folder.file("audio.mkv")
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=2", "-c:a", "libvorbis", audio])
        XCTAssertThrowsError(try header(audio)) { error in
            XCTAssertTrue("\(error)".contains("no video stream"), "\(error)")
        }
    }

    func testWithoutVideoVideosAreNotConsidered() throws {
        let path = folder.file("plain.mp4")
        try TestMedia.video(path, seconds: 2, black: 0)
        XCTAssertEqual(try withDescriptor(path) { try StructureCheck.content(descriptor: $0) }, .video)
        XCTAssertThrowsError(try header(path, options: MediaOptions())) { error in
            XCTAssertEqual((error as? VipsError)?.code, .unsupported)
        }
    }
}
