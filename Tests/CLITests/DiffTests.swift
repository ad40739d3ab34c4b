import Foundation
import Glibc
import Vips
import XCTest

/// `--diff BASELINE` as a CI job runs it: pictures made here, one pixel
/// changed at a known place, the exit status, the events, the sheet's pixels.
final class DiffTests: CLITestCase {
    static let red = RGB(red: 255, green: 0, blue: 0)

    /// A 64x48 light picture with a dark square, and `dots` changed to black.
    func screenshot(dots: [(Int, Int)] = [], width: Int = 64, height: Int = 48, suffix: String = ".png") -> [UInt8] {
        let pixels = PixelBuffer(width: width, height: height) { x, y in
            if dots.contains(where: { $0 == (x, y) }) { return .black }
            return (10..<20).contains(x) && (10..<20).contains(y) ? RGB(red: 0, green: 0, blue: 160)
                                                                     : RGB(red: 240, green: 240, blue: 230)
        }
        return try! Encoder.encode(pixels, suffix: suffix, orientation: nil).bytes
    }

    func diff(_ extra: [String] = [], output: String = "diff.png") throws -> ProcessResult {
        try collage(["--diff", "base", "--json"] + extra + ["shots", "-o", output])
    }

    func compared(_ result: ProcessResult) -> [String: [String: Any]] {
        var byPath: [String: [String: Any]] = [:]
        for event in events(jsonEvents(result), "compared") { byPath[event["path"] as? String ?? ""] = event }
        return byPath
    }

    func testNothingDiffersIsStatusZeroAndLeavesTheOldSheetAlone() throws {
        makeFolder("base"); makeFolder("shots")
        write(screenshot(), to: "base/a.png"); write(screenshot(), to: "shots/a.png")
        // The same pixels in other bytes: decoded, compared, unchanged.
        write(screenshot(), to: "base/b.png"); write(screenshot(suffix: ".png[compression=1]"), to: "shots/b.png")
        XCTAssertNotEqual(contents("base/b.png"), contents("shots/b.png"))
        write(b("an old sheet"), to: "diff.png")
        let result = try collage(["--diff", "base", "shots", "-o", "diff.png"])
        assertSuccess(result, stdout: "")
        XCTAssertEqual(contents("diff.png"), b("an old sheet"))
        let json = try diff()
        XCTAssertEqual(json.status, 0, json.summary)
        XCTAssertEqual(compared(json).values.map { $0["status"] as? String }, ["unchanged", "unchanged"])
        let summary = events(jsonEvents(json), "summary")[0]
        XCTAssertEqual(summary["compared"] as? [String: Int], ["changed": 0, "resized": 0, "shifted": 0, "added": 0,
                                                                     "removed": 0, "noise": 0, "unchanged": 2])
        XCTAssertEqual(EventSchema.streamProblems(jsonEvents(json), status: json.status), [])
    }

    /// One pixel changed at (40, 30): found there, counted once, drawn red
    /// in the difference panel and the page panel of its cell; status 1,
    /// one line on stderr.
    func testOnePixelChangeIsFoundAndShownInRed() throws {
        makeFolder("base"); makeFolder("shots")
        write(screenshot(), to: "base/a.png"); write(screenshot(dots: [(40, 30)]), to: "shots/a.png")
        let plain = try collage(["--diff", "base", "shots", "-o", "diff.png", "--size", "600x200", "--label", ""])
        XCTAssertEqual(plain.status, 1, plain.summary)
        XCTAssertEqual(plain.stdoutLines, ["diff.png"])
        XCTAssertEqual(plain.stderrLines.count, 1, plain.summary)
        XCTAssertTrue(plain.stderrText.contains("1 changed"), plain.stderrText)
        guard let sheet = decoded("diff.png") else { return }
        XCTAssertEqual(sheet.width, 600)
        // The cell is the changed region with its context (48x48) as baseline | current |
        // difference, and the whole page small beside it: red shows in the difference panel
        // (the third of four) and in the page panel.
        var reds: [(Int, Int)] = []
        for y in 0..<sheet.height { for x in 0..<sheet.width where sheet.pixel(x: x, y: y).distance(to: Self.red) < 30 {
            reds.append((x, y))
        } }
        XCTAssertEqual(reds.count, 2, "one red pixel in each of two panels: \(reds)")
        if reds.count == 2 {
            XCTAssertGreaterThan(reds[0].0, 300, "in the difference panel")
            XCTAssertGreaterThan(reds[1].0, 450, "in the page panel")
        }
        let result = try diff()
        XCTAssertEqual(result.status, 1)
        let event = compared(result)["shots/a.png"]
        XCTAssertEqual(event?["status"] as? String, "changed")
        XCTAssertEqual(event?["pixels"] as? Int, 1)
        XCTAssertEqual(event?["baseline"] as? String, "base/a.png")
        XCTAssertEqual((event?["percent"] as? Double).map { ($0 * 10_000).rounded() }, (100.0 / 3072 * 10_000).rounded())
        for event in jsonEvents(result) { XCTAssertEqual(EventSchema.problems(event), [], EventSchema.text(event)) }
        XCTAssertEqual(EventSchema.streamProblems(jsonEvents(result), status: result.status), [])
    }

    /// Files of the same bytes are `unchanged` before any header is read:
    /// identical bytes that are no image at all, and a truncated PNG, are
    /// never reported as unreadable.
    func testIdenticalBytesAreNeverDecoded() throws {
        makeFolder("base"); makeFolder("shots")
        for (name, bytes) in [("junk.png", b("not an image at all")), ("cut.png", Array(screenshot().prefix(60)))] {
            write(bytes, to: "base/" + name); write(bytes, to: "shots/" + name)
        }
        let result = try diff()
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(events(jsonEvents(result), "failed").count, 0)
        XCTAssertEqual(events(jsonEvents(result), "rejected").count, 0)
        XCTAssertEqual(Set(compared(result).values.compactMap { $0["status"] as? String }), ["unchanged"])
        // The same truncated PNG in other bytes is read, and fails.
        write(Array(screenshot().prefix(61)), to: "shots/cut.png")
        settle()  // cut short two hours ago: failed, not a file still being copied
        let read = try diff()
        XCTAssertEqual(read.status, 65, read.summary)
        XCTAssertEqual(Set(events(jsonEvents(read), "failed").map { $0["path"] as? String ?? "" }), ["shots/cut.png", "base/cut.png"])
    }

    /// Added and removed pairs, names that are not UTF-8, in the walk's
    /// order whatever the folders hold; on the sheets, changed pairs first
    /// (most real change first), then added, then removed.
    func testAddedRemovedAndByteNamesInWalkOrder() throws {
        for folder in ["base", "shots", "base/sub", "shots/sub"] { makeFolder(folder) }
        let odd = b("caf") + [0xE9] + b(".png")
        write(screenshot(), to: b("base/") + odd); write(screenshot(dots: [(1, 1), (2, 2)]), to: b("shots/") + odd)
        write(screenshot(), to: "base/sub/gone.png")
        write(screenshot(), to: "shots/sub/new.png")
        write(screenshot(), to: "base/a.png"); write(screenshot(dots: [(5, 5)]), to: "shots/a.png")
        write(screenshot(), to: "base/same.png"); write(screenshot(), to: "shots/same.png")
        let result = try diff(["--sheets", "--max", "2"], output: "diff-{n}.png")
        XCTAssertEqual(result.status, 1, result.summary)
        let all = jsonEvents(result)
        let pairs = events(all, "compared")
        XCTAssertEqual(pairs.map { pathBytes($0, "path") ?? [] },
                       [b("shots/a.png"), b("shots/") + odd, b("shots/same.png"), b("shots/sub/gone.png"), b("shots/sub/new.png")])
        XCTAssertEqual(pairs.map { $0["status"] as? String }, ["changed", "changed", "unchanged", "removed", "added"])
        XCTAssertEqual(pairs.count > 1 ? pathBytes(pairs[1], "baseline") : nil, b("base/") + odd)
        // Changed first, most real change first (2 pixels, then 1), then added, then removed.
        XCTAssertEqual(events(all, "written").map { ($0["images"] as? [String]) ?? [] },
                       [["shots/caf\u{FFFD}.png", "shots/a.png"], ["shots/sub/new.png", "shots/sub/gone.png"]])
        XCTAssertTrue(exists("diff-0001.png") && exists("diff-0002.png"))
        for event in all { XCTAssertEqual(EventSchema.problems(event), [], EventSchema.text(event)) }
    }

    /// The JUnit report, read by a real XML parser: one test case per pair,
    /// a failure for each that differs with the numbers, an error for an
    /// unreadable one.
    func testJUnitReportParses() throws {
        guard haveProgram("python3") else { throw XCTSkip("python3 is not installed") }
        makeFolder("base"); makeFolder("shots")
        write(screenshot(), to: "base/a.png"); write(screenshot(dots: [(40, 30)]), to: "shots/a.png")
        write(screenshot(), to: "base/b & <c>.png"); write(screenshot(), to: "shots/b & <c>.png")
        write(screenshot(), to: "base/cut.png"); write(Array(screenshot().prefix(70)), to: "shots/cut.png")
        write(screenshot(), to: "shots/new.png")
        settle()  // cut short two hours ago: failed, not a file still being copied
        let result = try diff(["--junit", "report/junit.xml"])
        XCTAssertEqual(result.status, 73, "the report's folder is missing: \(result.summary)")
        makeFolder("report")
        let written = try diff(["--junit", "report/junit.xml"])
        XCTAssertEqual(written.status, 65, written.summary)
        let script = """
            import sys, xml.etree.ElementTree as E
            root = E.parse(sys.argv[1]).getroot()
            for case in root.iter('testcase'):
                kind = [c.tag + ':' + c.get('type') + ':' + c.get('message') for c in case]
                print(case.get('name'), *kind, sep='|')
            print(root.get('tests'), root.get('failures'), root.get('errors'))
            """
        let parsed = try runProcess([b("python3"), b("-c"), b(script), b(path("report/junit.xml"))])
        XCTAssertEqual(parsed.status, 0, parsed.summary)
        XCTAssertEqual(parsed.stdoutLines, [
            "a.png|failure:changed:changed: 1 pixels differ (0.0326%)",
            "b & <c>.png",
            "cut.png|error:unreadable:" + (parsed.stdoutLines.dropFirst(2).first?.split(separator: ":", maxSplits: 2).last.map(String.init) ?? ""),
            "new.png|failure:added:added: 3072 pixels differ (100%)",
            "4 2 1",
        ])
        XCTAssertTrue(parsed.stdoutLines[2].contains("png"), parsed.stdoutLines[2])
        XCTAssertEqual(listingText("report"), ["junit.xml"], "no temporary file left")
    }
}
