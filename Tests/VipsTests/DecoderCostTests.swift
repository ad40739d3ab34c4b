import CollageTestSupport
import Media
import Video
import XCTest

/// What a film's decode costs the budget (`VideoInfo.decoderBytes`: its
/// declared pictures and three more) is at least what FFmpeg's decoder
/// really holds at once, counted picture by picture as it asks for them
/// (`VideoFile.peakPictures`), for streams whose parameter sets declare
/// many pictures: FFmpeg's own `refs` is 1 until a frame is decoded, so
/// x264's 16 references counted as 1 (an estimate of 6 pictures for a
/// decode that held 17).
final class DecoderCostTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        if let missing = MediaFile.videoUnavailable { throw XCTSkip(missing) }
        folder = try TemporaryDirectory()
    }

    /// 4 s of FFmpeg's moving pattern at 640x360, encoded as `codec` says.
    private func film(_ name: String, _ codec: [String]) throws -> String {
        let path = folder.file(name)
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=4",
                                     "-pix_fmt", "yuv420p"] + codec + [path])
        return path
    }

    /// The pictures the decoder held at most while it found a film's frame
    /// at 0.2 s (the best of its candidates over the next 1.9 s: about 50
    /// frames decoded from the start), and the pictures its budget counts.
    private func cost(_ path: String) throws -> (held: Int, counted: Int, references: Int) {
        try withDescriptor(path) { descriptor in
            let video = try VideoFile(descriptor: descriptor, seconds: 20, maxBytes: 64 << 20)
            let found = video.frames(at: [0.2], coverWidth: 80, coverHeight: 45)
            XCTAssertNil(found.stopped)
            XCTAssertEqual(found.frames.count, 1, path)
            let counted = video.info.decoderBytes / video.info.decodedFrameBytes
            return (video.peakPictures, counted, video.info.referenceFrames)
        }
    }

    func testTheBudgetCountsThePicturesTheDecoderHolds() throws {
        let films = [
            // x264 with 16 references and 3 B-frames: mp4 (avcC) and MPEG-TS (Annex B start codes).
            try film("refs16.mp4", ["-c:v", "libx264", "-preset", "faster", "-refs", "16", "-bf", "3", "-g", "50"]),
            try film("refs16.ts", ["-c:v", "libx264", "-preset", "faster", "-refs", "16", "-bf", "3", "-g", "50"]),
            // x265's fastest: a decoded picture buffer of 5 declared where FFmpeg says 1 reference and 2 reordered.
            try film("hevc.mp4", ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"]),
            try film("hevc-refs4.mkv", ["-c:v", "libx265", "-preset", "medium",
                                        "-x265-params", "log-level=error:ref=4:bframes=4:b-pyramid=1"]),
            // Low delay: one reference, no reordering.
            try film("low-delay.mp4", ["-c:v", "libx264", "-preset", "ultrafast", "-g", "50"]),
        ]
        for path in films {
            let (held, counted, references) = try cost(path)
            let name = path.split(separator: "/").last.map(String.init) ?? path
            print("\(name): held \(held) pictures at most, counted \(counted) (\(references) declared)")
            XCTAssertGreaterThan(held, 0, "\(name): the decoder's pictures are counted")
            XCTAssertLessThanOrEqual(held, counted, "\(name): the budget counts what the decode holds")
            XCTAssertLessThanOrEqual(counted, held + 4, "\(name): and not much more")
        }
    }
}
