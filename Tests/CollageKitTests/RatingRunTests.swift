import CollageTestSupport
import FileFacts
import XCTest
@testable import CollageKit
@testable import Vips

/// Ratings and labels in a run: read from a photo's own XMP or from its
/// sidecar (`NAME.EXT.xmp` first, then `NAME.xmp`, either winning over the
/// embedded packet), `--min-rating` keeping exactly the photos rated high
/// enough, `{rating}` and `{label}` in the captions, and sidecars that
/// cannot be used said in a line and ignored; the camera's fields too.
final class RatingRunTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
        try makeDirectory(folder("day"))
    }

    override func tearDown() { folder = nil }

    /// A JPEG in day/ with ExifTool's `arguments` applied (`-XMP:Rating=5`).
    private func photo(_ name: String, _ arguments: [String] = []) throws {
        try writeFlatImage(folder("day/" + name), RGB(red: 90, green: 120, blue: 150), width: 60, height: 40, suffix: ".jpg")
        if !arguments.isEmpty {
            try TestMedia.run("exiftool", ["-q", "-overwrite_original"] + arguments + [folder("day/" + name).description])
        }
    }

    /// A sidecar written by ExifTool from `arguments` alone (`-o NAME.xmp`).
    private func sidecar(_ name: String, _ arguments: [String]) throws {
        try TestMedia.run("exiftool", ["-q"] + arguments + ["-o", folder("day/" + name).description])
    }

    private func runDay(minRating: Int? = nil, label: String = "{name} {rating} {label}",
                        skipUnchanged: Bool = false) throws -> RunResult {
        var configuration = CollageConfiguration(inputs: [.path(folder("day"))])
        configuration.skipUnchanged = skipUnchanged
        configuration.output = folder("out.png")
        configuration.canvasWidth = 240
        configuration.canvasHeight = 160
        configuration.maxImages = 20
        configuration.minRating = minRating
        configuration.captions.label = try Template(label, fields: Template.labelFields)
        return runCollage(configuration)
    }

    /// Each placed photo's caption, by its name.
    private func captions(_ result: RunResult) -> [String: String] {
        var captions: [String: String] = [:]
        for case let .placed(path, _, _, _, label, _) in result.events {
            captions[String(decoding: path.lastComponent, as: UTF8.self)] = label
        }
        return captions
    }

    private func notices(_ result: RunResult) -> [String] {
        result.events.compactMap { if case .notice(let text) = $0 { return text } else { return nil } }
    }

    private func rejected(_ result: RunResult) -> [String] {
        result.rejected.filter { $0.reason == .rating }.map { String(decoding: $0.path.lastComponent, as: UTF8.self) }.sorted()
    }

    func testRatingsAndLabelsComeFromTheXMPAndItsSidecars() throws {
        try photo("a-embedded.jpg", ["-XMP:Rating=5", "-XMP:Label=Red"])
        try photo("b-dotted.jpg", ["-XMP:Rating=1", "-XMP:Label=Blue"])
        try sidecar("b-dotted.jpg.xmp", ["-XMP:Rating=4", "-XMP:Label=Green"])  // darktable's name wins
        try sidecar("b-dotted.xmp", ["-XMP:Rating=2"])
        try photo("c-plain.jpg", ["-XMP:Rating=1"])
        try sidecar("c-plain.xmp", ["-XMP:Rating=3"])  // Lightroom's name
        try photo("d-unrated.jpg")
        try photo("e-rejected.jpg")
        try sidecar("e-rejected.jpg.xmp", ["-XMP:Rating=-1"])
        let result = try runDay()
        XCTAssertEqual(result.outcome.status, .success)
        XCTAssertEqual(captions(result), ["a-embedded.jpg": "a-embedded.jpg ★★★★★ Red",
                                          "b-dotted.jpg": "b-dotted.jpg ★★★★☆ Green",
                                          "c-plain.jpg": "c-plain.jpg ★★★☆☆ ",
                                          "d-unrated.jpg": "d-unrated.jpg  ",
                                          "e-rejected.jpg": "e-rejected.jpg rejected "])
        XCTAssertEqual(notices(result).filter { $0.contains("XMP") }, [], "nothing to say of good sidecars")
    }

    func testMinRatingKeepsExactlyThePhotosRatedHighEnough() throws {
        try photo("five.jpg", ["-XMP:Rating=5"])
        try photo("three.jpg")
        try sidecar("three.xmp", ["-XMP:Rating=3"])
        try photo("two.jpg", ["-XMP:Rating=2"])
        try photo("unrated.jpg")
        try photo("rejected.jpg", ["-XMP:Rating=-1"])
        XCTAssertEqual(rejected(try runDay(minRating: 3)), ["rejected.jpg", "two.jpg", "unrated.jpg"])
        XCTAssertEqual(rejected(try runDay(minRating: 5)), ["rejected.jpg", "three.jpg", "two.jpg", "unrated.jpg"])
        // Unrated counts 0: only a photo rejected (-1) is left out.
        let zero = try runDay(minRating: 0)
        XCTAssertEqual(rejected(zero), ["rejected.jpg"])
        XCTAssertEqual(detail(zero, "rejected.jpg"), "rated -1 (rejected), under --min-rating 0")
        XCTAssertEqual(rejected(try runDay(minRating: -1)), [])
        XCTAssertEqual(rejected(try runDay()), [])
    }

    private func detail(_ run: RunResult, _ name: String) -> String? {
        for case let .rejected(path, _, detail) in run.events where path.lastComponent == Array(name.utf8) { return detail }
        return nil
    }

    func testSidecarsThatCannotBeUsedAreIgnoredAndSaid() throws {
        try photo("garbage.jpg", ["-XMP:Rating=2", "-XMP:Label=Blue"])
        try writeFile(Array("not XML, a note someone saved here\n".utf8), to: folder("day/garbage.jpg.xmp"))
        try photo("lying.jpg", ["-XMP:Rating=4"])
        try writeFile(Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="9" xmp:Label="Red"/>
            </rdf:RDF></x:xmpmeta>
            """.utf8), to: folder("day/lying.xmp"))
        try photo("huge.jpg")
        try writeFile([UInt8](repeating: 0x20, count: (1 << 20) + 1), to: folder("day/huge.xmp"))
        try photo("fifo.jpg", ["-XMP:Rating=1"])
        XCTAssertEqual(folder("day/fifo.jpg.xmp").withCString { mkfifo($0!, 0o644) }, 0)
        let result = try runDay()
        XCTAssertEqual(result.outcome.status, .success, "a bad sidecar fails nothing")
        // Each falls back to the photo's own XMP.
        XCTAssertEqual(captions(result), ["garbage.jpg": "garbage.jpg ★★☆☆☆ Blue", "lying.jpg": "lying.jpg ★★★★☆ ",
                                          "huge.jpg": "huge.jpg  ", "fifo.jpg": "fifo.jpg ★☆☆☆☆ "])
        let said = notices(result).map { $0.replacingOccurrences(of: folder.pathName.description + "/day/", with: "") }
        XCTAssertTrue(said.contains { $0.hasPrefix("garbage.jpg: XMP sidecar garbage.jpg.xmp ignored: not XML") }, "\(said)")
        XCTAssertTrue(said.contains("lying.jpg: XMP sidecar lying.xmp ignored: a rating of '9', not -1 to 5"), "\(said)")
        XCTAssertTrue(said.contains("huge.jpg: XMP sidecar huge.xmp ignored: larger than 1 MiB"), "\(said)")
        XCTAssertTrue(said.contains("fifo.jpg: XMP sidecar fifo.jpg.xmp ignored: not a regular file"), "\(said)")
        // The rating that --min-rating goes by says why too.
        let strict = try runDay(minRating: 3)
        XCTAssertEqual(detail(strict, "garbage.jpg")?.hasPrefix("rated 2, under --min-rating 3; XMP sidecar garbage.jpg.xmp ignored: not XML"), true)
    }

    func testCameraFieldsCaptionEachPhoto() throws {
        try photo("r6.jpg", ["-Make=Canon", "-Model=Canon EOS R6", "-LensModel=RF24-70mm F2.8 L IS USM", "-FocalLength=35",
                             "-FNumber=2.8", "-ExposureTime=1/250", "-ISO=400"])
        try photo("plain.jpg")
        let result = try runDay(label: "{camera}|{lens}|{focal}|{aperture}|{shutter}|{iso}")
        XCTAssertEqual(captions(result), ["r6.jpg": "Canon EOS R6|RF24-70mm F2.8 L IS USM|35 mm|f/2.8|1/250 s|ISO 400",
                                          "plain.jpg": "|||||"])
    }

    /// `--skip-unchanged`: a sidecar edited, added or removed alone changes the output.
    func testASidecarEditedAloneIsAChange() throws {
        try photo("a.jpg")
        let unchanged = { (result: RunResult) in
            result.events.contains { if case .unchanged = $0 { return true } else { return false } }
        }
        XCTAssertFalse(unchanged(try runDay(skipUnchanged: true)))
        XCTAssertTrue(unchanged(try runDay(skipUnchanged: true)), "nothing changed")
        try sidecar("a.xmp", ["-XMP:Rating=3"])
        let rated = try runDay(skipUnchanged: true)
        XCTAssertFalse(unchanged(rated), "a sidecar appeared")
        XCTAssertEqual(captions(rated), ["a.jpg": "a.jpg ★★★☆☆ "])
        XCTAssertTrue(unchanged(try runDay(skipUnchanged: true)))
        try writeFile(Array(String(decoding: try readFile(folder("day/a.xmp")), as: UTF8.self)
            .replacingOccurrences(of: ">3<", with: ">4<").utf8), to: folder("day/a.xmp"))
        let edited = try runDay(skipUnchanged: true)
        XCTAssertFalse(unchanged(edited), "the sidecar was edited")
        XCTAssertEqual(captions(edited), ["a.jpg": "a.jpg ★★★★☆ "])
        XCTAssertEqual(folder("day/a.xmp").withCString { unlink($0!) }, 0)
        XCTAssertFalse(unchanged(try runDay(skipUnchanged: true)), "the sidecar is gone")
    }

    /// A JPEG shown for its RAW photo takes the rating darktable keeps in
    /// the RAW's own sidecar (`NAME.CR3.xmp`): after the JPEG's own
    /// `NAME.JPG.xmp`, before the shared `NAME.xmp`. `--skip-unchanged`
    /// sees that sidecar edited.
    func testAStillShowsItsRAWPartnersSidecar() throws {
        try photo("shot.jpg")
        try writeFile(Array(repeating: 0x2A, count: 64), to: folder("day/shot.cr3"))  // never decoded: the JPEG is shown
        try sidecar("shot.cr3.xmp", ["-XMP:Rating=5", "-XMP:Label=Green"])
        try sidecar("shot.xmp", ["-XMP:Rating=2"])
        let first = try runDay(minRating: 4, label: "{rating} {label}", skipUnchanged: true)
        XCTAssertEqual(captions(first), ["shot.jpg": "★★★★★ Green"], "\(first.events)")
        try sidecar("shot.jpg.xmp", ["-XMP:Rating=3"])
        let own = try runDay(label: "{rating} {label}", skipUnchanged: true)
        XCTAssertEqual(captions(own), ["shot.jpg": "★★★☆☆ "], "its own NAME.EXT.xmp comes first")
        XCTAssertEqual(folder("day/shot.jpg.xmp").withCString { unlink($0!) }, 0)
        XCTAssertEqual(captions(try runDay(label: "{rating} {label}", skipUnchanged: true)), ["shot.jpg": "★★★★★ Green"])
        try TestMedia.run("exiftool", ["-q", "-XMP:Rating=1", "-o", folder("edited.xmp").description])
        XCTAssertEqual(folder("edited.xmp").withCString { new in
            folder("day/shot.cr3.xmp").withCString { rename(new!, $0!) }
        }, 0)
        let edited = try runDay(label: "{rating} {label}", skipUnchanged: true)
        XCTAssertEqual(captions(edited), ["shot.jpg": "★☆☆☆☆ "], "the RAW's sidecar edited is a change")
    }

    /// A photo named on its own (no folder listing) has its sidecars looked for by name.
    func testANamedPhotosSidecarIsFound() throws {
        try photo("named.jpg", ["-XMP:Rating=1"])
        try sidecar("named.jpg.xmp", ["-XMP:Rating=5", "-XMP:Label=Select"])
        var configuration = CollageConfiguration(inputs: [.path(folder("day/named.jpg"))])
        configuration.output = folder("named.png")
        configuration.captions.label = try Template("{rating} {label}", fields: Template.labelFields)
        XCTAssertEqual(captions(runCollage(configuration)), ["named.jpg": "★★★★★ Select"])
    }
}
