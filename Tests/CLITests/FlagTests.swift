import Foundation
import Glibc
import Vips
import XCTest

/// `--flag blank,duplicate` and `--fail-on-flag` over a folder of real
/// photos with one flat image and one smaller copy of a photo among them.
final class FlagTests: CLITestCase {
    private func writeMixedFolder() throws {
        guard haveProgram("vips") else { throw XCTSkip("the vips command (libvips-tools) is not installed") }
        makeFolder("in")
        copySample("dune.jpg", to: "in/0-dune.jpg")
        copySample("aqua.jpg", to: "in/1-aqua.jpg")
        writeImage(RGB(red: 90, green: 120, blue: 60), to: "in/2-blank.png", width: 400, height: 300)
        copySample("greenmeadow.jpg", to: "in/3-greenmeadow.jpg")
        // The same photo, half the size and re-encoded: other bytes, same look.
        let copy = try runProcess([b("vips"), b("resize"), b(Package.samples + "/dune.jpg"), b(path("in/4-copy.png")), b("0.5")])
        XCTAssertEqual(copy.status, 0, copy.summary)
        copySample("raindrops.jpg", to: "in/5-raindrops.jpg")
        copySample("twowings.jpg", to: "in/6-twowings.jpg")
        copySample("storm-rotated.jpg", to: "in/7-storm.jpg")
    }

    func testExactlyTheBlankAndTheDuplicateAreFlagged() throws {
        try writeMixedFolder()
        let result = try collage(["--sheets", "--max", "3", "--flag", "blank,duplicate", "--json", "in", "-o", "s.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "--flag")
        let flagged = events(all, "flagged").map { [$0["path"] as? String ?? "", $0["reason"] as? String ?? "",
                                                   $0["of"] as? String ?? "-"] }
        XCTAssertEqual(flagged, [["in/2-blank.png", "blank", "-"], ["in/4-copy.png", "duplicate", "in/0-dune.jpg"]])
        XCTAssertEqual(events(all, "placed").count, 8, "flagged images are still placed")
        XCTAssertEqual(all.last?["flagged"] as? Int, 2)
        // Each flag is a warning line too, just before the image is placed.
        let warnings = result.stderrLines.filter { $0.contains("flagged") }
        XCTAssertEqual(warnings.count, 2, result.stderrText)
        XCTAssertTrue(warnings.contains { $0.contains("4-copy.png") && $0.contains("0-dune.jpg") }, result.stderrText)
    }

    func testOneKindAtATime() throws {
        try writeMixedFolder()
        let blank = try collage(["--sheets", "--flag", "blank", "--json", "in", "-o", "s.jpg"])
        XCTAssertEqual(events(jsonEvents(blank), "flagged").map { $0["path"] as? String }, ["in/2-blank.png"])
        let duplicate = try collage(["--sheets", "--flag", "duplicate", "--json", "in", "-o", "s.jpg"])
        XCTAssertEqual(events(jsonEvents(duplicate), "flagged").map { $0["path"] as? String }, ["in/4-copy.png"])
    }

    func testNoFlagWithoutTheOption() throws {
        try writeMixedFolder()
        let result = try collage(["--sheets", "--json", "in", "-o", "s.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(events(assertValidEventStream(result, "no --flag"), "flagged").count, 0)
        XCTAssertFalse(result.stderrText.contains("flagged"), result.stderrText)
    }

    func testFailOnFlagIsStatus65WithOneLine() throws {
        try writeMixedFolder()
        let result = try collage(["-q", "--sheets", "--flag", "blank,duplicate", "--fail-on-flag", "in", "-o", "s.jpg"])
        XCTAssertEqual(result.status, 65, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        XCTAssertTrue(result.stderrText.contains("2 image(s) flagged"), result.stderrText)
        XCTAssertTrue(exists("s-0001.jpg"), "the sheets are still written")
        let json = try collage(["--sheets", "--flag", "blank", "--fail-on-flag", "--json", "in", "-o", "s.jpg"])
        XCTAssertEqual(json.status, 65)
        assertValidEventStream(json, "--fail-on-flag")
        let clean = try collage(["--flag", "blank,duplicate", "--fail-on-flag", "in/0-dune.jpg", "in/1-aqua.jpg", "-o", "c.jpg"])
        assertSuccess(clean, stdout: "c.jpg\n")
    }

    func testUnknownFlagNamesAreUsageErrors() throws {
        try writeMixedFolder()
        assertFailure(try collage(["--flag", "blank,blurry", "in"]), status: 64, mentions: ["blurry"])
        assertFailure(try collage(["--fail-on-flag", "in"]), status: 64, mentions: ["--flag"])
        assertFailure(try collage(["--dry-run", "--flag", "blank", "in"]), status: 64, mentions: ["--flag"])
    }

    func testJPEGXLRoundTrip() throws {
        guard Vips.canSave(suffix: ".jxl") else { throw XCTSkip("this libvips has no JPEG XL saver (vips-jxl module)") }
        makeFolder("in")
        let colours = Array(palette.prefix(4))
        for (index, colour) in colours.enumerated() { writeImage(colour, to: "in/\(index).png", width: 320, height: 240) }
        let made = try collage(["in", "-o", "four.jxl"])
        XCTAssertEqual(made.status, 0, made.summary)
        makeFolder("jxl")
        XCTAssertEqual(rename(path("four.jxl"), path("jxl/four.jxl")), 0)
        // Found in a folder by its extension, read by its content.
        let back = try collage(["--json", "jxl", "-o", "back.png"])
        XCTAssertEqual(back.status, 0, back.summary)
        XCTAssertEqual(events(jsonEvents(back), "accepted").first?["format"] as? String, "jxl")
        guard let picture = decoded("back.png") else { return }
        // One image covering the canvas: its 2x2 grid of colours is still there.
        for (index, colour) in colours.enumerated() {
            let seen = picture.pixel(x: (index % 2) * 600 + 300, y: (index / 2) * 400 + 200)
            XCTAssertLessThanOrEqual(seen.distance(to: colour), 40, "quadrant \(index) is \(seen), not \(colour)")
        }
    }
}
