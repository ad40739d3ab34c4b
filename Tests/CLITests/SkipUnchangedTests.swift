import Foundation
import Glibc
import Vips
import XCTest

/// `--skip-unchanged`: a rerun with the same inputs (paths, sizes,
/// modification times) and options does nothing but print the path (and an
/// `unchanged` event); any change to an input, the input list, an option or
/// the output itself redoes the work.
final class SkipUnchangedTests: CLITestCase {
    private var colours: [String: RGB] = [:]

    private func put(_ name: String, _ colour: RGB) {
        writeImage(colour, to: "in/" + name)
        colours[name] = colour
    }

    /// a.png, b.png, c.png in `in`.
    private func makeInputs() {
        makeFolder("in")
        put("a.png", palette[0])
        put("b.png", palette[1])
        put("c.png", palette[2])
    }

    /// One run with --json: how many collages it wrote, how many it found unchanged.
    @discardableResult
    private func run(_ extra: [String] = [], output: String = "out.jpg", expect: String,
                     file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let result = try collage(["in", "--skip-unchanged", "--json", "-o", output] + extra)
        XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
        XCTAssertEqual(result.stderr, [], result.summary, file: file, line: line)
        let all = assertValidEventStream(result, expect, file: file, line: line)
        let kinds = all.compactMap { $0["event"] as? String }.filter { $0 == "written" || $0 == "unchanged" }
        XCTAssertTrue(!kinds.isEmpty && kinds.allSatisfy { $0 == expect }, "expected '\(expect)' events, got \(kinds)",
                      file: file, line: line)
        return all
    }

    /// The second run prints the same path, exits 0, says nothing on stderr,
    /// and leaves the output's bytes, inode and nanosecond mtime alone.
    func testRerunLeavesTheOutputAlone() throws {
        makeInputs()
        let first = try collage(["in", "--skip-unchanged", "-o", "out.jpg"])
        assertSuccess(first, stdout: "out.jpg\n")
        let bytes = try XCTUnwrap(contents("out.jpg"))
        // No waiting for the clock to move on: a rewrite renames a new file
        // into place, so it would show as another inode, whatever its mtime.
        let time = try XCTUnwrap(fileTime("out.jpg"))

        let second = try collage(["in", "--skip-unchanged", "-o", "out.jpg"])
        assertSuccess(second, stdout: "out.jpg\n")
        assertSameBytes(contents("out.jpg"), bytes, "the output after an unchanged run")
        XCTAssertEqual(fileTime("out.jpg"), time, "mtime (ns) and inode untouched")

        let json = try collage(["in", "--skip-unchanged", "--json", "-o", "out.jpg"])
        XCTAssertEqual(json.status, 0, json.summary)
        let all = assertValidEventStream(json, "unchanged rerun")
        XCTAssertEqual(events(all, "unchanged").map { $0["output"] as? String }, ["out.jpg"])
        XCTAssertEqual(events(all, "unchanged").first?["images"] as? [String], ["in/a.png", "in/b.png", "in/c.png"])
        XCTAssertEqual(events(all, "written").count, 0)
        XCTAssertEqual(fileTime("out.jpg"), time)
        XCTAssertEqual(litter(), [], "no temporary or lock file")
    }

    /// Each change makes the next run write the output again (a new file,
    /// showing the change), and the run after it is unchanged again.
    func testEachChangeRedoesTheWork() throws {
        makeInputs()
        try run(expect: "written")
        try run(expect: "unchanged")
        var time = try XCTUnwrap(fileTime("out.jpg"))

        func assertRedone(_ change: String, _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
            try run(extra, expect: "written", file: file, line: line)
            let now = fileTime("out.jpg")
            XCTAssertNotNil(now, "\(change): the output exists", file: file, line: line)
            XCTAssertNotEqual(now, time, "\(change): the output was written again", file: file, line: line)
            time = now ?? time
            try run(extra, expect: "unchanged", file: file, line: line)
            XCTAssertEqual(fileTime("out.jpg"), time, "\(change): then it is unchanged", file: file, line: line)
        }

        // An input's modification time changes (same bytes).
        setModificationTime("in/b.png", seconds: 1_600_000_000, nanoseconds: 123)
        try assertRedone("touched input")

        // An input appears before the others.
        put("0.png", palette[3])
        try assertRedone("input added first")
        if let picture = decoded("out.jpg") {
            assertTiles(picture, [palette[3], palette[0], palette[1], palette[2]], tolerance: 40)
        }

        // An input is replaced by other bytes.
        put("a.png", palette[4])
        try assertRedone("input replaced")
        if let picture = decoded("out.jpg") {
            assertTiles(picture, [palette[3], palette[4], palette[1], palette[2]], tolerance: 40)
        }

        // An input is removed.
        XCTAssertEqual(unlink(path("in/c.png")), 0)
        try assertRedone("input removed")
        if let picture = decoded("out.jpg") { assertTiles(picture, [palette[3], palette[4], palette[1]], tolerance: 40) }

        // An option that shapes the output: --size, then --background.
        try assertRedone("--size", ["--size", "600x400"])
        XCTAssertEqual(decoded("out.jpg").map { [$0.width, $0.height] }, [600, 400])
        try assertRedone("--background", ["--background", "black"])
        if let picture = decoded("out.jpg") {
            // 3 images on a 2x2 grid: the fourth cell is the background.
            XCTAssertLessThanOrEqual(picture.pixel(x: 900, y: 600).distance(to: RGB(red: 0, green: 0, blue: 0)), 10)
        }
        try assertRedone("back to the defaults")

        // The output is deleted.
        XCTAssertEqual(unlink(path("out.jpg")), 0)
        try assertRedone("output deleted")

        // The output is edited in place.
        let good = try XCTUnwrap(contents("out.jpg"))
        let handle = open(path("out.jpg"), O_WRONLY | O_APPEND)
        XCTAssertEqual(Glibc.write(handle, "junk", 4), 4)
        close(handle)
        try assertRedone("output edited")
        assertSameBytes(contents("out.jpg"), good, "the output is made again")
        XCTAssertEqual(litter(), [], "no temporary or lock file")
    }

    /// Without --sheets the run stops at the cap: an image added after the
    /// sixth cannot change the collage, so it is still unchanged; one added
    /// before does.
    func testAfterTheCapNothingMatters() throws {
        makeFolder("in")
        for index in 1...8 { put("\(index).png", palette[index]) }
        // --quiet: the cap notice on stderr is not the point here.
        try run(["--quiet"], expect: "written")
        let time = fileTime("out.jpg")
        put("9.png", palette[9])
        setModificationTime("in/8.png", seconds: 1_600_000_000)
        try run(["--quiet"], expect: "unchanged")
        XCTAssertEqual(fileTime("out.jpg"), time)
        put("0.png", palette[0])
        try run(["--quiet"], expect: "written")
        if let picture = decoded("out.jpg") { assertTiles(picture, Array(palette[0...5]), tolerance: 40) }
    }

    /// With --sheets: every sheet's path printed again, none rewritten; a
    /// change to one input, a new image at the end, or a deleted sheet
    /// redoes them.
    func testSheets() throws {
        makeFolder("in")
        for index in 0..<5 { put("\(index).png", palette[index]) }
        let arguments = ["in", "--skip-unchanged", "--sheets", "--max", "2", "-o", "sheet.jpg"]
        let sheets = ["sheet-0001.jpg", "sheet-0002.jpg", "sheet-0003.jpg"]
        let listing = sheets.map { $0 + "\n" }.joined()
        assertSuccess(try collage(arguments), stdout: listing)
        var times = sheets.map { fileTime($0) }
        assertSuccess(try collage(arguments), stdout: listing)
        XCTAssertEqual(sheets.map { fileTime($0) }, times, "no sheet rewritten")
        let json = try collage(arguments + ["--json"])
        let all = assertValidEventStream(json, "unchanged sheets")
        XCTAssertEqual(events(all, "unchanged").map { $0["output"] as? String }, sheets)
        XCTAssertEqual(events(all, "unchanged").map { $0["images"] as? [String] },
                       [["in/0.png", "in/1.png"], ["in/2.png", "in/3.png"], ["in/4.png"]])

        setModificationTime("in/3.png", seconds: 1_600_000_000)
        assertSuccess(try collage(arguments), stdout: listing)
        XCTAssertNotEqual(fileTime("sheet-0002.jpg"), times[1], "the sheet holding the touched input is rewritten")
        times = sheets.map { fileTime($0) }
        assertSuccess(try collage(arguments), stdout: listing)
        XCTAssertEqual(sheets.map { fileTime($0) }, times)

        put("5.png", palette[5])
        assertSuccess(try collage(arguments), stdout: listing)
        XCTAssertNotEqual(fileTime("sheet-0003.jpg"), times[2], "a new image at the end changes the last sheet")
        if let picture = decoded("sheet-0003.jpg") { assertTiles(picture, [palette[4], palette[5]], tolerance: 40) }
        times = sheets.map { fileTime($0) }

        XCTAssertEqual(unlink(path("sheet-0002.jpg")), 0)
        assertSuccess(try collage(arguments), stdout: listing)
        XCTAssertTrue(exists("sheet-0002.jpg"), "the deleted sheet is made again")
        times = sheets.map { fileTime($0) }
        assertSuccess(try collage(arguments), stdout: listing)
        XCTAssertEqual(sheets.map { fileTime($0) }, times)
        XCTAssertEqual(litter(), [])
    }

    /// A list on standard input cannot be checked: a usage error.
    func testStandardInputIsAUsageError() throws {
        makeInputs()
        assertFailure(try collage(["--skip-unchanged", "-", "-o", "out.jpg"], stdin: b("in/a.png\n")),
                      status: 64, mentions: ["--skip-unchanged"])
        assertFailure(try collage(["in", "-", "--skip-unchanged", "-o", "out.jpg"], stdin: b("in/a.png\n")),
                      status: 64)
        XCTAssertFalse(exists("out.jpg"))
    }
}
