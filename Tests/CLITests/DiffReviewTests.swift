import Foundation
import Glibc
import Vips
import XCTest

/// What `--diff` leaves for the reviewer: full-size difference pictures
/// (`--diff-images`), and JUnit test cases with `time` and GitLab's
/// `[[ATTACHMENT|PATH]]`.
final class DiffReviewTests: CLITestCase {
    private func screenshot(dots: [(Int, Int)] = []) -> [UInt8] {
        let pixels = PixelBuffer(width: 64, height: 48) { x, y in
            if dots.contains(where: { $0 == (x, y) }) { return .black }
            return (10..<20).contains(x) && (10..<20).contains(y) ? RGB(red: 0, green: 0, blue: 160)
                                                                     : RGB(red: 240, green: 240, blue: 230)
        }
        return try! Encoder.encode(pixels, suffix: ".png", orientation: nil).bytes
    }

    private func picture(_ relative: String) throws -> PixelBuffer {
        try ImageFile.decode(bytes: XCTUnwrap(contents(relative), relative))
    }

    func testDifferencePicturesAndJUnitAttachments() throws {
        guard haveProgram("python3") else { throw XCTSkip("python3 is not installed") }
        for folder in ["base", "shots", "base/sub", "shots/sub"] { makeFolder(folder) }
        write(screenshot(), to: "base/a.png"); write(screenshot(dots: [(40, 30)]), to: "shots/a.png")
        write(screenshot(), to: "base/sub/c.png"); write(screenshot(dots: [(3, 3)]), to: "shots/sub/c.png")
        write(screenshot(), to: "base/same.png"); write(screenshot(), to: "shots/same.png")
        write(screenshot(), to: "shots/new.png")
        let result = try collage(["--diff", "base", "--json", "--junit", "j.xml", "--diff-images", "pics", "shots",
                                  "-o", "d.png"])
        XCTAssertEqual(result.status, 1, result.summary)
        let a = try picture("pics/a.png")
        XCTAssertEqual([a.width, a.height], [64, 48], "full size")
        XCTAssertEqual(a.pixel(x: 40, y: 30), RGB(red: 255, green: 0, blue: 0))
        XCTAssertEqual(a.pixel(x: 0, y: 0).red, a.pixel(x: 0, y: 0).blue, "a faded grey elsewhere")
        XCTAssertEqual(try picture("pics/sub/c.png").pixel(x: 3, y: 3), RGB(red: 255, green: 0, blue: 0))
        let added = try picture("pics/new.png")
        XCTAssertEqual([added.width, added.height], [64, 48])
        XCTAssertEqual(added.pixel(x: 10, y: 10), RGB(red: 255, green: 0, blue: 0), "all of it is new")
        XCTAssertEqual(listingText("pics"), ["a.png", "new.png", "sub"], "nothing for the unchanged, no temporary file")
        let script = """
            import sys, xml.etree.ElementTree as E
            for case in E.parse(sys.argv[1]).getroot().iter('testcase'):
                out = case.find('system-out')
                print(case.get('name'), float(case.get('time')) >= 0, out.text if out is not None else '', sep='|')
            """
        let parsed = try runProcess([b("python3"), b("-c"), b(script), b(path("j.xml"))])
        XCTAssertEqual(parsed.status, 0, parsed.summary)
        XCTAssertEqual(parsed.stdoutLines, ["a.png|True|[[ATTACHMENT|pics/a.png]]", "new.png|True|[[ATTACHMENT|pics/new.png]]",
                                            "same.png|True|", "sub/c.png|True|[[ATTACHMENT|pics/sub/c.png]]"])
        // A DIR that cannot hold them: the run fails as an output does, and says which.
        write(b("a file"), to: "blocked")
        let blocked = try collage(["--diff", "base", "--diff-images", "blocked", "shots", "-o", "e.png"])
        XCTAssertEqual(blocked.status, 73, blocked.summary)
        XCTAssertTrue(blocked.stderrText.contains("--diff-images"), blocked.stderrText)
    }

    /// The Markdown summary: the counts, a row per differing pair in the
    /// sheets' order with its files linked relative to the summary's folder.
    func testMarkdownSummary() throws {
        for folder in ["base", "shots", "out"] { makeFolder(folder) }
        write(screenshot(), to: "base/a.png"); write(screenshot(dots: [(40, 30), (41, 30)]), to: "shots/a.png")
        write(screenshot(), to: "base/b|c.png"); write(screenshot(dots: [(5, 5)]), to: "shots/b|c.png")
        write(screenshot(), to: "base/same.png"); write(screenshot(), to: "shots/same.png")
        write(screenshot(), to: "base/gone.png")
        let result = try collage(["--diff", "base", "--markdown", "out/summary.md", "--diff-images", "out/pics",
                                  "shots", "-o", "out/d.png"])
        XCTAssertEqual(result.status, 1, result.summary)
        let text = String(decoding: try XCTUnwrap(contents("out/summary.md")), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "## Visual diff: 3 of 4 screenshot(s) differ")
        XCTAssertEqual(lines.dropFirst().first, "**2 changed** · **1 removed** · 1 unchanged")
        let rows = lines.filter { $0.hasPrefix("| ❌") }
        XCTAssertEqual(rows, [
            "| ❌ | a.png | changed | 2 (0.0651%) |  | 1 | [baseline](../base/a.png) · [current](../shots/a.png) · "
                + "[difference](pics/a.png) |",
            "| ❌ | b\\|c.png | changed | 1 (0.0326%) |  | 2 | [baseline](../base/b%7Cc.png) · [current](../shots/b%7Cc.png) · "
                + "[difference](pics/b%7Cc.png) |",
            "| ❌ | gone.png | removed |  |  |  | [baseline](../base/gone.png) · [difference](pics/gone.png) |",
        ])
        XCTAssertFalse(text.contains("same.png"), "unchanged pairs are only counted")
        XCTAssertEqual(listingText("out").filter { $0.contains("collage-tmp") }, [])
    }
}
