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

    // MARK: - Deciding on the page

    /// The review page opened from disk in a real browser (Chromium driven
    /// by Playwright): rows ticked, the decisions read from the page as
    /// they are kept up to date, saved and applied with --approve-from;
    /// exactly those files change. Then a second review whose current file
    /// changes before the decisions are applied: that one is refused (65),
    /// the others applied. The page makes no request but for its own files.
    func testDecisionsMadeOnThePageAreApplied() throws {
        _ = try playwrightPython()
        for folder in ["base", "shots", "review"] { makeFolder(folder) }
        for (index, name) in ["a.png", "b.png", "c.png", "d.png"].enumerated() {
            write(screenshot(), to: "base/" + name)
            write(screenshot(dots: [(30 + index, 30)]), to: "shots/" + name)
        }
        write(screenshot(), to: "base/same.png"); write(screenshot(), to: "shots/same.png")
        write(screenshot(), to: "base/gone.png")
        write(screenshot(dots: [(5, 5)]), to: "shots/new.png")
        let result = try collage(["--diff", "base", "shots", "-o", "review/d.png", "--html", "review/index.html",
                                  "--markdown", "review/summary.md"])
        XCTAssertEqual(result.status, 1, result.summary)
        let markdown = String(decoding: try XCTUnwrap(contents("review/summary.md")), as: UTF8.self)
        XCTAssertTrue(markdown.hasSuffix("```sh\ncollage --diff base shots --approve-from decisions.json\n```\n"), markdown)
        let (baseA, baseB) = (contents("base/a.png"), contents("base/b.png"))
        let before = Dictionary(uniqueKeysWithValues: listingText("base").map { ($0, contents("base/" + $0)) })

        let page = try playwright("""
            page.goto('file://' + sys.argv[1])
            def state():
                return {'json': page.text_content('#decisions-json'), 'count': page.text_content('#decisions-count'),
                        'href': page.get_attribute('#decisions-download', 'href'),
                        'download': page.get_attribute('#decisions-download', 'download')}
            steps = [state()]
            box = lambda path: 'tr:has(input.approve[data-path="%s"]) input.%s' % (path, 'approve')
            alternative = lambda path: 'tr:has(input.approve[data-path="%s"]) input.alternative' % path
            page.check(box('a.png'))
            page.check(alternative('a.png'))
            page.check(box('new.png'))
            page.check(box('gone.png'))
            page.check(box('b.png'))
            steps.append(state())
            page.uncheck(box('b.png'))
            steps.append(state())
            rows = page.eval_on_selector_all('tr.pair', 'rows => rows.map(r => [r.dataset.status, !!r.querySelector("input.approve"), !!r.querySelector("input.alternative")])')
            emit({'steps': steps, 'requests': requests, 'rows': rows})
            """, arguments: [path("review/index.html")])
        let requests = try XCTUnwrap(page["requests"] as? [String])
        XCTAssertFalse(requests.isEmpty)
        XCTAssertEqual(requests.filter { !$0.hasPrefix("file://") }, [], "no request but the page's own files")
        let rows = try XCTUnwrap(page["rows"] as? [[Any]])
        XCTAssertEqual(rows.map { "\($0[0]):\(($0[1] as? Bool) == true):\(($0[2] as? Bool) == true)" },
                       ["changed:true:true", "changed:true:true", "changed:true:true", "changed:true:true",
                        "added:true:false", "removed:true:false", "unchanged:false:false"])
        let steps = try XCTUnwrap(page["steps"] as? [[String: String]])
        XCTAssertEqual(steps.map { $0["count"] }, ["0 approved", "4 approved", "3 approved"], "kept up to date")
        XCTAssertEqual(steps.first?["download"], "decisions.json")
        func decoded(_ json: String?) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(XCTUnwrap(json).utf8)) as? [String: Any])
        }
        let last = try XCTUnwrap(steps.last)
        let decided = try decoded(last["json"])
        XCTAssertEqual(decided["baseline"] as? String, "base")
        XCTAssertEqual(decided["input"] as? [String], ["shots"])
        let approve = try XCTUnwrap(decided["approve"] as? [[String: Any]])
        XCTAssertEqual(approve.map { $0["path"] as? String }, ["a.png", "new.png", "gone.png"])
        XCTAssertEqual(approve.map { $0["alternative"] as? Bool }, [true, false, false])
        let digest = try runProcess([b("sha256sum"), b(path("shots/a.png"))]).stdoutText.prefix(64)
        XCTAssertEqual(approve.first?["sha256"] as? String, String(digest), "the SHA-256 of the file the reviewer saw")
        XCTAssertTrue(approve[2]["sha256"] is NSNull, "a removed pair has no current file")
        let href = try XCTUnwrap(last["href"])
        XCTAssertTrue(href.hasPrefix("data:application/json;charset=utf-8,"), href)
        XCTAssertEqual(String(href.dropFirst("data:application/json;charset=utf-8,".count)).removingPercentEncoding,
                       last["json"], "the download holds the same decisions")

        write(b(try XCTUnwrap(last["json"])), to: "decisions.json")
        let applied = try collage(["--diff", "base", "shots", "--approve-from", "decisions.json"])
        XCTAssertEqual(applied.status, 0, applied.summary)
        var changed = Set(listingText("base")).union(before.keys).filter { contents("base/" + $0) != before[$0] ?? nil }
        XCTAssertEqual(changed, ["a.png", "a~1.png", "new.png", "gone.png"], "exactly the decisions")
        XCTAssertEqual(contents("base/a.png"), contents("shots/a.png"))
        XCTAssertEqual(contents("base/a~1.png"), baseA)
        XCTAssertEqual(contents("base/new.png"), contents("shots/new.png"))
        XCTAssertFalse(exists("base/gone.png"))
        XCTAssertEqual(contents("base/b.png"), baseB)

        // A second review: b and c approved, then c changes before the decisions are applied.
        let again = try collage(["--diff", "base", "shots", "-o", "review/d.png", "--html", "review/index.html"])
        XCTAssertEqual(again.status, 1, again.summary)
        let second = try playwright("""
            page.goto('file://' + sys.argv[1])
            for path in ['b.png', 'c.png']:
                page.check('input.approve[data-path="%s"]' % path)
            emit({'json': page.text_content('#decisions-json'), 'requests': requests})
            """, arguments: [path("review/index.html")])
        XCTAssertEqual((second["requests"] as? [String] ?? ["none"]).filter { !$0.hasPrefix("file://") }, [])
        write(b(try XCTUnwrap(second["json"] as? String)), to: "decisions.json")
        write(screenshot(dots: [(1, 40)]), to: "shots/c.png")
        let baseC = contents("base/c.png")
        let snapshot = Dictionary(uniqueKeysWithValues: listingText("base").map { ($0, contents("base/" + $0)) })
        let stale = try collage(["--diff", "base", "shots", "--approve-from", "decisions.json"])
        XCTAssertEqual(stale.status, 65, stale.summary)
        XCTAssertTrue(stale.stderrLines.contains { $0.contains("c.png") && $0.contains("changed since the review") },
                      stale.stderrText)
        changed = Set(listingText("base")).filter { contents("base/" + $0) != snapshot[$0] ?? nil }
        XCTAssertEqual(changed, ["b.png"], "the others applied, the stale one left")
        XCTAssertEqual(contents("base/c.png"), baseC)
    }
}
