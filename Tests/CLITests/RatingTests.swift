import CollageTestSupport
import Foundation
import Vips
import XCTest

/// Ratings on the command line: `--min-rating` keeps the photos rated high
/// enough (the others `rejected`, reason `rating`), `{rating}` and `{label}`
/// caption them, and a sidecar that cannot be used is one line with `-v`,
/// nothing at all off a terminal without it.
final class RatingTests: CLITestCase {
    /// day/: a photo rated 5 and labelled Red in its own XMP, one rated 2
    /// whose sidecar is not XML, one rated 4 by its darktable sidecar.
    private func makeDay() throws {
        makeFolder("day")
        for (index, name) in ["five.jpg", "two.jpg", "four.jpg"].enumerated() {
            writeImage(palette[index], to: "day/" + name, width: 120, height: 80, suffix: ".jpg")
        }
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-XMP:Rating=5", "-XMP:Label=Red", path("day/five.jpg")])
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-XMP:Rating=2", path("day/two.jpg")])
        write(b("rating: 5 (not XMP)\n"), to: "day/two.xmp")
        try TestMedia.run("exiftool", ["-q", "-XMP:Rating=4", "-o", path("day/four.jpg.xmp")])
    }

    func testMinRatingAndTheRatingFields() throws {
        try makeDay()
        let result = try collage(["day", "--min-rating", "4", "--label", "{stem} {rating} {label}", "--json", "-o", "out.jpg"])
        XCTAssertEqual(result.status, 0, result.stderrText)
        let all = jsonEvents(result)
        XCTAssertEqual(events(all, "rejected").map { $0["path"] as? String }, ["day/two.jpg"])
        XCTAssertEqual(events(all, "rejected").first?["reason"] as? String, "rating")
        XCTAssertEqual(Set(events(all, "placed").compactMap { $0["label"] as? String }), ["five ★★★★★ Red", "four ★★★★☆ "])
    }

    /// `--skip-unchanged` records and checks the sidecars the folder's
    /// listing holds, and tries no other name: no `stat` of `five.xmp` or
    /// `five.jpg.xmp`, which are not there, in either run (both names of
    /// every photo were tried before), while `four.jpg.xmp` is read.
    func testSkipUnchangedLooksOnlyAtTheListedSidecars() throws {
        guard haveProgram("strace") else { throw XCTSkip("strace is not installed") }
        try makeDay()
        for round in ["first", "second"] {
            let log = path("strace-\(round).log")
            let result = try runProcess([b("strace"), b("-f"), b("-e"), b("trace=%file"), b("-o"), b(log)]
                                        + command([b("day"), b("--skip-unchanged"), b("-o"), b("out.jpg")]),
                                        directory: dir)
            XCTAssertEqual(result.status, 0, result.summary)
            let trace = String(decoding: contents(b(log)) ?? [], as: UTF8.self)
            XCTAssertTrue(trace.contains("\"day/four.jpg.xmp\""), "\(round) run: the listed sidecar is read\n" + trace)
            for absent in ["day/five.xmp", "day/five.jpg.xmp", "day/four.xmp", "day/two.jpg.xmp"] {
                XCTAssertFalse(trace.contains("\"\(absent)\""), "\(round) run: \(absent) is not in the listing\n" + trace)
            }
        }
    }

    func testABadSidecarIsOneLineWithVerboseAndSilentWithout() throws {
        try makeDay()
        assertSuccess(try collage(["day", "-o", "out.jpg"]), stdout: "out.jpg\n")
        let verbose = try collage(["day", "-v", "-o", "out.jpg"])
        XCTAssertEqual(verbose.status, 0)
        let lines = verbose.stderrText.split(separator: "\n").filter { $0.contains("two.xmp") && $0.contains("ignored") }
        XCTAssertEqual(lines.count, 1, verbose.stderrText)
        XCTAssertTrue(lines.first?.hasPrefix("collage: day/two.jpg: XMP sidecar two.xmp ignored: not XML") == true, verbose.stderrText)
    }
}
