import CollageTestSupport
import FileFacts
import Media
import XCTest
@testable import CollageKit
@testable import Vips

/// A video's rating and label from the XMP a photo manager wrote into the
/// file (ExifTool writes an MP4's as its XMP `uuid` box, a QuickTime
/// film's as its `XMP_` atom), as a photo's come from its own packet: in
/// `{rating}` and `{label}`, under `--min-rating`, and a sidecar still winning.
final class VideoRatingTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        if let missing = MediaFile.videoUnavailable { throw XCTSkip(missing) }
        try Vips.start()
        folder = try TemporaryDirectory()
        try makeDirectory(folder("day"))
    }

    override func tearDown() { folder = nil }

    /// A one-second film in day/ with ExifTool's `arguments` applied.
    private func film(_ name: String, _ arguments: [String] = []) throws {
        let path = folder("day/" + name).description
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=96x64:r=10:d=1",
                                     "-pix_fmt", "yuv420p", path])
        if !arguments.isEmpty { try TestMedia.run("exiftool", ["-q", "-overwrite_original"] + arguments + [path]) }
    }

    private func run(minRating: Int? = nil) throws -> [String: String] {
        var configuration = CollageConfiguration(inputs: [.path(folder("day"))])
        configuration.video = true
        configuration.output = folder("out.png")
        configuration.canvasWidth = 240
        configuration.canvasHeight = 160
        configuration.maxImages = 20
        configuration.minRating = minRating
        configuration.captions.label = try Template("{name} {rating} {label}", fields: Template.labelFields)
        let result = runCollage(configuration)
        XCTAssertEqual(result.outcome.status, .success)
        var captions: [String: String] = [:]
        for case let .placed(path, _, _, _, label, _) in result.events {
            captions[String(decoding: path.lastComponent, as: UTF8.self)] = label
        }
        return captions
    }

    func testAVideosOwnXMPGivesItsRatingAndLabel() throws {
        try film("a.mp4", ["-XMP:Rating=5", "-XMP:Label=Red"])
        try film("b.mov", ["-XMP:Rating=2"])
        try film("c.mp4", ["-XMP:Rating=1"])
        try TestMedia.run("exiftool", ["-q", "-XMP:Rating=4", "-o", folder("day/c.mp4.xmp").description])
        try film("d.mp4")
        XCTAssertEqual(try run(), ["a.mp4": "a.mp4 ★★★★★ Red", "b.mov": "b.mov ★★☆☆☆ ",
                                   "c.mp4": "c.mp4 ★★★★☆ ", "d.mp4": "d.mp4  "])
        XCTAssertEqual(try run(minRating: 3), ["a.mp4": "a.mp4 ★★★★★ Red", "c.mp4": "c.mp4 ★★★★☆ "])
    }
}
