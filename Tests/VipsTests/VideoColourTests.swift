import CollageTestSupport
import FileFacts
import Media
import ToneMap
import Video
import XCTest
@testable import Vips

/// Poster frames in the right colours: each stream's own matrix and range
/// (BT.601, BT.709; limited, full), and HDR (HLG, PQ) tone-mapped to sRGB
/// by `ToneMap`, close to FFmpeg's own zscale + tonemap rendering of the
/// same frame. The videos are made here with ffmpeg from a pattern of four
/// known patches (`TestFilms`).
final class VideoColourTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        if let missing = MediaFile.videoUnavailable { throw XCTSkip(missing) }
        folder = try TemporaryDirectory()
    }

    /// The poster of `path` at its own 320x240 (no play mark: `Video` alone).
    private func poster(_ path: String) throws -> VideoPoster {
        try withDescriptor(path) { descriptor in
            let video = try VideoFile(descriptor: descriptor, seconds: 10, maxBytes: 64 << 20)
            return try video.poster(coverWidth: 320, coverHeight: 240)
        }
    }

    private func pixel(_ pixels: VideoPixels, _ x: Int, _ y: Int) -> RGB {
        let i = (y * pixels.width + x) * 3
        return RGB(red: pixels.bytes[i], green: pixels.bytes[i + 1], blue: pixels.bytes[i + 2])
    }

    /// Each patch of our poster within `lightness` of FFmpeg's L* and within
    /// `chroma` of its C*: grey exactly so (both operators are linear
    /// there), colours as close as two operators get (FFmpeg's `mobius`
    /// bends from 30% of SDR white, BT.2390's EETF later).
    private func assertCloseToFFmpeg(_ made: VideoPoster, _ path: String, lightness: Double, chroma: Double,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let reference = try TestFilms.ffmpegToneMapped(path)
        for (index, (x, y)) in TestFilms.centres.enumerated() {
            let i = (y * 320 + x) * 3
            let theirs = TestFilms.lch(RGB(red: reference[i], green: reference[i + 1], blue: reference[i + 2]))
            let ours = TestFilms.lch(pixel(made.pixels, x, y))
            XCTAssertEqual(ours.l, theirs.l, accuracy: index == 0 ? 2 : lightness, "L* at \(x),\(y)",
                           file: file, line: line)
            XCTAssertEqual(ours.c, theirs.c, accuracy: index == 0 ? 2 : chroma, "C* at \(x),\(y)",
                           file: file, line: line)
        }
    }

    /// Each patch of our poster as the tone mapper makes its known code
    /// values (`ToneMap.mapLinear` on their light): what decoding (matrix,
    /// range, depth, scaling) must not change, but for the encoder's
    /// rounding (amplified near the gamut's edge: `tolerance`).
    private func assertAsMappedFromThePattern(_ made: VideoPoster, _ patches: [RGB], tolerance: Int,
                                              file: StaticString = #filePath, line: UInt = #line) {
        let tone = made.colour.tone
        for (patch, (x, y)) in zip(patches, TestFilms.centres) {
            var light = [patch.red, patch.green, patch.blue].map {
                ToneMap.linearise(Double($0) / 255, transfer: tone.transfer)
            }
            if tone.transfer == 18 {  // HLG's OOTF, BT.2100: display light for a 1000 cd/m² display
                let ys = 0.2627 * light[0] + 0.6780 * light[1] + 0.0593 * light[2]
                light = light.map { $0 * 1000 * pow(ys, 0.2) }
            }
            let mapped = ToneMap.mapLinear((light[0], light[1], light[2]), source: tone)
            let code = { (v: Double) in UInt8((ToneMap.sRGBEncode(v) * 255).rounded()) }
            let expected = RGB(red: code(mapped.0), green: code(mapped.1), blue: code(mapped.2))
            XCTAssertColour(pixel(made.pixels, x, y), expected, tolerance: tolerance, "at \(x),\(y)", file: file, line: line)
        }
    }

    func testHLGIsToneMappedAsFFmpegMapsIt() throws {
        let path = folder.file("hlg.mp4")
        try TestFilms.hdr(path, transfer: "arib-std-b67")
        let made = try poster(path)
        XCTAssertEqual([made.pixels.width, made.pixels.height], [320, 240])
        XCTAssertEqual([made.colour.tone.transfer, made.colour.tone.primaries, made.colour.matrix], [18, 9, 9])
        XCTAssertFalse(made.colour.fullRange)
        assertAsMappedFromThePattern(made, TestFilms.patches, tolerance: 3)
        try assertCloseToFFmpeg(made, path, lightness: 4, chroma: 9)
    }

    func testPQIsToneMappedAsFFmpegMapsIt() throws {
        let path = folder.file("pq.mp4")
        try TestFilms.hdr(path, transfer: "smpte2084")
        let made = try poster(path)
        XCTAssertEqual([made.colour.tone.transfer, made.colour.tone.primaries], [16, 9])
        assertAsMappedFromThePattern(made, TestFilms.pqPatches, tolerance: 6)
        try assertCloseToFFmpeg(made, path, lightness: 7, chroma: 9)
    }

    func testPQsLightLevelsReachTheToneMapper() throws {
        let path = folder.file("pq-hdr10.mp4")
        try TestFilms.hdr(path, transfer: "smpte2084", lightLevels: true)
        let tone = try poster(path).colour.tone
        XCTAssertEqual(tone.masteringPeak, 1000, accuracy: 0.5, "x265's master-display L(10000000,1)")
        XCTAssertEqual(tone.maxContentLight, 1000, "x265's max-cll=1000,400")
        XCTAssertEqual(tone.peak, 1000, accuracy: 0.5)
    }

    func testEachMatrixAndRangeIsDecodedRight() throws {
        // Each clip's matrix is the opposite of what its size would guess.
        let cases = [("bt709", "tv", "320x240"), ("bt601", "tv", "1280x720"), ("bt709", "pc", "320x240"),
                     ("bt601", "pc", "1280x720")]
        for (matrix, range, size) in cases {
            let path = folder.file("\(matrix)-\(range).mp4")
            try TestFilms.sdr(path, matrix: matrix, range: range, size: size)
            let made = try withDescriptor(path) { descriptor in
                try VideoFile(descriptor: descriptor, seconds: 10, maxBytes: 64 << 20)
                    .poster(coverWidth: 160, coverHeight: 120)
            }
            XCTAssertEqual(made.colour.fullRange, range == "pc", "\(matrix) \(range)")
            XCTAssertEqual(made.colour.matrix, matrix == "bt709" ? 1 : 6, "\(matrix) \(range)")
            for (patch, (x, y)) in zip(TestFilms.patches, TestFilms.centres) {
                XCTAssertColour(pixel(made.pixels, x * made.pixels.width / 320, y * made.pixels.height / 240), patch, tolerance: 5,
                                "\(matrix) \(range) \(size) at \(x),\(y)")
            }
        }
    }
}
