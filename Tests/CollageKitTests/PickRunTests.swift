import Dispatch
import CollageTestSupport
import Glibc
import XCTest
@testable import CollageKit
@testable import CollageTerminal
@testable import Vips

/// `--pick` on days made here from samples/ with vips and ExifTool: bursts
/// with shifts, an exposure change and a motion-blurred frame, a black and
/// a defocused shot, a re-encoded duplicate, capture times set.
final class PickRunTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples").path

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func path(_ name: String) -> String { folder("day/" + name).description }
    private func vips(_ arguments: String...) throws { try TestMedia.run("vips", arguments) }
    private func taken(_ time: String, _ names: String...) throws {
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2026:08:14 " + time]
                                      + names.map(path))
    }

    /// The day: 15 photos, six distinct moments worth showing.
    private func makeDay() throws {
        try makeDirectory(folder("day"))
        let line = folder("line.mat").description  // a 21-pixel horizontal motion
        try writeFile(Array(("21 1 21 0\n" + Array(repeating: "1", count: 21).joined(separator: " ") + "\n").utf8),
                      to: folder("line.mat"))
        let aqua = samples + "/aqua.jpg"
        try vips("crop", aqua, path("a1.jpg"), "0", "0", "960", "600")
        try vips("crop", aqua, path("a2.jpg"), "20", "10", "960", "600")
        try vips("crop", aqua, path("a3.jpg"), "40", "20", "960", "600")
        try vips("convi", path("a2.jpg"), path("a4.jpg"), line)
        try vips("linear", path("a1.jpg"), path("a5.jpg"), "0.8", "0", "--uchar")
        try vips("crop", samples + "/dune.jpg", path("b1.jpg"), "0", "0", "960", "600")
        try vips("crop", samples + "/dune.jpg", path("b2.jpg"), "30", "0", "960", "600")
        try vips("gaussblur", path("b1.jpg"), path("b3.jpg"), "6")
        try vips("copy", samples + "/raindrops.jpg", path("c.jpg"))
        try vips("black", path("d-black.jpg"), "960", "600")
        try vips("copy", samples + "/twowings.jpg", path("e.jpg"))
        try vips("thumbnail", path("e.jpg"), path("e-copy.jpg") + "[Q=40]", "800")
        try vips("gaussblur", samples + "/greenmeadow.jpg", path("f-defocused.jpg"), "8")
        try vips("copy", samples + "/storm-rotated.jpg", path("g.jpg"))
        try vips("autorot", samples + "/wood-sideways.jpg", folder("wood.jpg").description)
        try vips("crop", folder("wood.jpg").description, path("h.jpg"), "0", "0", "768", "500")
        try taken("09:00:00", "a1.jpg")
        try taken("09:00:01", "a2.jpg", "a4.jpg")
        try taken("09:00:02", "a3.jpg", "a5.jpg")
        try taken("10:00:00", "b1.jpg", "b2.jpg", "b3.jpg")
        try taken("11:00:00", "c.jpg")
        try taken("11:30:00", "d-black.jpg")
        try taken("12:00:00", "e.jpg", "e-copy.jpg")
        try taken("13:00:00", "f-defocused.jpg")
        try taken("14:00:00", "g.jpg")
        try taken("15:00:00", "h.jpg")
    }

    private func configuration(max: Int = 6, sheets: Bool = false, jobs: Int = 2) throws -> CollageConfiguration {
        var request = Configuration(inputs: [.path(folder("day"))])
        (request.pick, request.max, request.sheets, request.jobs) = (true, max, sheets, jobs)
        request.size = CanvasSize("300x200")
        request.output = folder(sheets ? "out/s-{n}.png" : "out.png")
        request.label = "{name}{stack}"
        if access(folder("out").description, F_OK) != 0 { try makeDirectory(folder("out")) }
        return try request.resolve().configuration
    }

    private func names(_ paths: [PathName]) -> [String] { paths.map { String(decoding: $0.lastComponent, as: UTF8.self) } }

    private func picked(_ result: RunResult) -> [PickedPhoto] {
        result.events.compactMap { if case .picked(let photo) = $0 { photo } else { nil } }
    }

    private func stacked(_ result: RunResult) -> [String: String] {
        var into: [String: String] = [:]
        for case .stacked(let path, let best) in result.events { into[names([path])[0]] = names([best])[0] }
        return into
    }

    func testADayShowsSixDistinctMomentsNoneBlankOrBlurredInTimeOrder() throws {
        try makeDay()
        let result = runCollage(try configuration())
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        let shown = names(result.written.first?.images ?? [])
        XCTAssertEqual(shown.map { String($0.prefix(1)) }, ["a", "b", "c", "e", "g", "h"], "\(shown)")
        XCTAssertFalse(shown.contains("a4.jpg"), "the motion-blurred frame")
        XCTAssertNotEqual(shown[1], "b3.jpg", "the defocused frame")
        XCTAssertEqual(shown[3], "e.jpg", "the original, not its smaller re-encoded copy")
        // Each burst stacked into its best, the duplicate into its original or the other way round.
        let into = stacked(result)
        XCTAssertEqual(Set(into.keys), Set(["a1.jpg", "a2.jpg", "a3.jpg", "a4.jpg", "a5.jpg", "b1.jpg", "b2.jpg",
                                            "b3.jpg", "e.jpg", "e-copy.jpg"]).subtracting(shown))
        XCTAssertEqual(into["a4.jpg"], shown[0])
        XCTAssertEqual(into["b3.jpg"], shown[1])
        XCTAssertEqual(picked(result).map(\.members), [5, 3, 1, 2, 1, 1])
        XCTAssertEqual(picked(result).map(\.moment), Array(1...6))
        let labels = result.events.compactMap { if case .placed(_, _, _, _, let label, _) = $0 { label } else { nil } }
        XCTAssertEqual(labels.first, shown[0] + "+4", "{stack}")
        XCTAssertEqual(labels[2], shown[2], "{stack} is empty for one photo")
        // The best of a burst is as sharp as its sharpest frame (sharp frames differ by their exposure).
        XCTAssertGreaterThan(picked(result)[0].score.sharpness, 0.65)
    }

    /// A phone's HEIC copy of a photo (libvips' heifsave, its EXIF time
    /// kept) is the same moment: stacked with the JPEG and its re-encoded
    /// copy, looked at through the HEIC's own small decode; still six moments.
    func testAHEICCopyIsStackedWithItsJPEG() throws {
        try makeDay()
        try vips("heifsave", path("e.jpg"), path("e-phone.heic"))
        let result = runCollage(try configuration())
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        let shown = names(result.written.first?.images ?? [])
        XCTAssertEqual(shown.map { String($0.prefix(1)) }, ["a", "b", "c", "e", "g", "h"], "\(shown)")
        XCTAssertEqual(picked(result).map(\.members), [5, 3, 1, 3, 1, 1])
        let into = stacked(result)
        XCTAssertEqual(Set(["e.jpg", "e-copy.jpg", "e-phone.heic"]).subtracting([shown[3]]),
                       Set(into.filter { $0.value == shown[3] }.keys), "\(into)")
    }

    /// Ratings from the photos' XMP (embedded, and a sidecar): a rated 5
    /// frame wins its burst over a sharper one; a frame rated -1 is never
    /// shown, even where it would be the best.
    func testARatedFiveWinsItsBurstAndARejectedOneIsNeverShown() throws {
        try makeDay()
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-XMP:Rating=5", path("a5.jpg")])
        try TestMedia.run("exiftool", ["-q", "-o", path("b1.jpg.xmp"), "-XMP:Rating=-1", path("b1.jpg")])
        let result = runCollage(try configuration())
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        let shown = names(result.written.first?.images ?? [])
        XCTAssertEqual(shown.first, "a5.jpg", "rated 5: \(shown)")
        XCTAssertEqual(picked(result).first?.score.rating, 5)
        XCTAssertFalse(shown.contains("b1.jpg"), "rated -1: \(shown)")
        XCTAssertEqual(shown[1], "b2.jpg", "the burst's best of the rest")
    }

    /// Face regions from the photos' own XMP (ExifTool's MWG regions): of
    /// two frames of a burst as good, the one whose face the frame cuts
    /// stands for the other, never the other way round.
    func testTheFrameWithItsFaceInsideWinsItsBurst() throws {
        try makeDirectory(folder("day"))
        try vips("crop", samples + "/raindrops.jpg", path("p1.jpg"), "0", "0", "960", "600")
        try vips("crop", samples + "/raindrops.jpg", path("p2.jpg"), "10", "0", "960", "600")
        func face(_ name: String, x: Double) throws {
            try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2026:08:14 09:00:00",
                "-XMP-mwg-rs:RegionInfo={AppliedToDimensions={W=960,H=600,Unit=pixel},RegionList=[{Area={X=\(x),Y=0.5,"
                + "W=0.2,H=0.3,Unit=normalized},Type=Face,Name=Ann}]}", path(name)])
        }
        try face("p1.jpg", x: 0.95)  // the face runs off the right edge
        try face("p2.jpg", x: 0.5)
        let result = runCollage(try configuration())
        XCTAssertEqual(names(result.written.first?.images ?? []), ["p2.jpg"])
        XCTAssertEqual(stacked(result), ["p1.jpg": "p2.jpg"])
        XCTAssertEqual(picked(result).first?.score.faces, 1)
    }

    func testJobsOneAndTwoPickTheSameAndSheetsShowEveryMoment() throws {
        try makeDay()
        let one = runCollage(try configuration(max: 4, sheets: true, jobs: 1))
        // Two, and more at once than the photos of a burst (LookAhead's queue full).
        for jobs in [2, 5] {
            let other = runCollage(try configuration(max: 4, sheets: true, jobs: jobs))
            XCTAssertEqual(one.written.map(\.images), other.written.map(\.images), "--jobs \(jobs)")
            XCTAssertEqual(picked(one), picked(other), "--jobs \(jobs)")
            XCTAssertEqual(stacked(one), stacked(other), "--jobs \(jobs)")
        }
        // Every moment once, but the black and the defocused shot (a moment of its own, no one's to see).
        XCTAssertEqual(names(one.written.flatMap(\.images)).map { String($0.prefix(1)) }, ["a", "b", "c", "e", "g", "h"])
    }

    func testAllIdenticalAllBlankAndNoDates() throws {
        try makeDirectory(folder("day"))
        for index in 0..<4 { try vips("copy", samples + "/dune.jpg", path("same\(index).jpg")) }
        let same = runCollage(try configuration())
        XCTAssertEqual(names(same.written.first?.images ?? []), ["same0.jpg"], "one moment, ties to the input order")
        XCTAssertEqual(stacked(same).count, 3)
        // No dates at all: the input order, neighbours only are a burst.
        for index in 0..<4 { XCTAssertEqual(unlink(path("same\(index).jpg")), 0) }
        for (index, name) in ["aqua", "dune", "raindrops"].enumerated() {
            try vips("copy", samples + "/\(name).jpg", path("\(index)-\(name).jpg"))
        }
        try vips("crop", samples + "/aqua.jpg", path("0-aqua-again.jpg"), "10", "0", "1000", "640")
        let undated = runCollage(try configuration(max: 2))
        XCTAssertEqual(names(undated.written.first?.images ?? []).count, 2)
        XCTAssertEqual(stacked(undated).count, 1, "the aqua shot again, its neighbour")
        // All blank: nothing to pick, nothing written, said.
        try makeDirectory(folder("blank"))
        for index in 0..<3 { try vips("black", folder("blank/\(index).jpg").description, "200", "100") }
        var blank = try configuration()
        blank.inputs = [.path(folder("blank"))]
        let none = runCollage(blank)
        XCTAssertTrue(none.written.isEmpty)
        XCTAssertTrue(picked(none).isEmpty)
    }

    func testAPhotoWhoseSmallDecodeFailsIsFailedAndTheRestPicked() throws {
        try makeDirectory(folder("day"))
        try vips("copy", samples + "/aqua.jpg", path("a.jpg"))
        try vips("copy", samples + "/dune.jpg", path("b.jpg"))
        let whole = try readFile(PathName(samples + "/raindrops.jpg"))
        try writeFile(Array(whole.prefix(whole.count / 2)), to: folder("day/c-truncated.jpg"))
        let past = Array(repeating: timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), count: 2)
        XCTAssertEqual(folder("day/c-truncated.jpg").withCString { name in name.map { utimensat(AT_FDCWD, $0, past, 0) } ?? -1 }, 0)
        let result = runCollage(try configuration())
        XCTAssertEqual(names(result.failed.map(\.path)), ["c-truncated.jpg"])
        XCTAssertEqual(names(result.written.first?.images ?? []), ["a.jpg", "b.jpg"])
        XCTAssertEqual(result.outcome.status, .someInputsFailed)
        // Each photo looked at is told once (the progress line counts them), the failed one not.
        let looked = result.events.compactMap { if case .looked(let path) = $0 { path } else { nil } }
        XCTAssertEqual(names(looked).sorted(), ["a.jpg", "b.jpg"])
        // Drawn to /dev/null: a progress line on the test's standard error
        // would run into the test runner's own lines.
        let nowhere = open("/dev/null", O_WRONLY)
        defer { close(nowhere) }
        let progress = ProgressReporter(line: ProgressLine(stream: StandardStream(descriptor: nowhere)), total: nil)
        result.events.forEach(progress.handle)
        XCTAssertTrue(progress.text(now: DispatchTime.now().uptimeNanoseconds).contains("2 looked at"))
    }
}
