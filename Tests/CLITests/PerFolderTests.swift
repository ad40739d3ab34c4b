import Foundation
import Glibc
import Vips
import XCTest

/// `--per-folder`: one collage per folder holding eligible images,
/// named by the `-o` template's `{path}` (the path below INPUT, `/` → `_`)
/// or `{dir}` (the folder's name), in walk order; folders with nothing
/// eligible are skipped and reported.
final class PerFolderTests: CLITestCase {
    /// in/top.jpg, in/2024/summer/{a,b}.jpg, in/2024/winter/{c,d,e}.jpg,
    /// in/empty/portrait.jpg: each image a flat colour.
    private let top = palette[0]
    private let summer = [palette[1], palette[2]]
    private let winter = [palette[3], palette[4], palette[5]]

    private func makeTree() {
        for folder in ["in", "in/2024", "in/2024/summer", "in/2024/winter", "in/empty", "out"] { makeFolder(folder) }
        writeImage(top, to: "in/top.jpg", suffix: ".jpg")
        writeImage(summer[0], to: "in/2024/summer/a.jpg", suffix: ".jpg")
        writeImage(summer[1], to: "in/2024/summer/b.jpg", suffix: ".jpg")
        writeImage(winter[0], to: "in/2024/winter/c.jpg", suffix: ".jpg")
        writeImage(winter[1], to: "in/2024/winter/d.jpg", suffix: ".jpg")
        writeImage(winter[2], to: "in/2024/winter/e.jpg", suffix: ".jpg")
        writeImage(palette[6], to: "in/empty/portrait.jpg", width: 48, height: 64, suffix: ".jpg")
    }

    /// Stdout is the written paths in walk order, stderr empty (the notice
    /// naming the skipped folder is told with -v), and each collage holds
    /// its own folder's images.
    private func assertTree(_ result: ProcessResult, names: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
        XCTAssertEqual(result.stdoutText, names.map { "out/\($0)\n" }.joined(), "walk order", file: file, line: line)
        XCTAssertEqual(result.stderr, [], "a run that ends well says nothing\n\(result.summary)", file: file, line: line)
        XCTAssertEqual(listingText("out"), names.sorted(), file: file, line: line)
        for (name, colours) in zip(names, [[top], summer, winter]) {
            if let picture = decoded("out/" + name, file: file, line: line) {
                assertTiles(picture, colours, tolerance: 40, file: file, line: line)
            }
        }
    }

    func testPathTemplate() throws {
        makeTree()
        let result = try collage(["--per-folder", "in", "-o", "out/{path}.jpg"])
        assertTree(result, names: ["in.jpg", "2024_summer.jpg", "2024_winter.jpg"])
        let told = try collage(["--per-folder", "in", "-v", "-o", "out/{path}.jpg"])
        XCTAssertEqual(told.stderrLines.filter { $0.contains("skipped folder 'in/empty'") }.count, 1, told.summary)
    }

    func testDirTemplate() throws {
        makeTree()
        let result = try collage(["--per-folder", "in", "-o", "out/{dir}.jpg"])
        assertTree(result, names: ["in.jpg", "summer.jpg", "winter.jpg"])
    }

    /// `cd ~/Photos && collage --per-folder . …`: the root's collage is
    /// named after the folder itself, not "." (which made a hidden "..jpg").
    func testDotAsInput() throws {
        makeTree()
        let result = try collage(["--per-folder", ".", "-o", "../out/{path}.jpg"], directory: path("in"))
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "../out/in.jpg\n../out/2024_summer.jpg\n../out/2024_winter.jpg\n")
        XCTAssertEqual(listingText("out"), ["2024_summer.jpg", "2024_winter.jpg", "in.jpg"])
        let dir = try collage(["--per-folder", "./", "-o", "../out/{dir}.png"], directory: path("in"))
        XCTAssertEqual(dir.status, 0, dir.summary)
        XCTAssertEqual(dir.stdoutText, "../out/in.png\n../out/summer.png\n../out/winter.png\n")
    }

    /// --json: written events in walk order, a notice for the skipped folder.
    func testJSON() throws {
        makeTree()
        let result = try collage(["--per-folder", "in", "--json", "-o", "out/{path}.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "--per-folder")
        XCTAssertEqual(events(all, "written").map { $0["output"] as? String },
                       ["out/in.jpg", "out/2024_summer.jpg", "out/2024_winter.jpg"])
        XCTAssertEqual(events(all, "written").map { $0["images"] as? [String] },
                       [["in/top.jpg"], ["in/2024/summer/a.jpg", "in/2024/summer/b.jpg"],
                        ["in/2024/winter/c.jpg", "in/2024/winter/d.jpg", "in/2024/winter/e.jpg"]])
        let notices = events(all, "notice").compactMap { $0["message"] as? String }
        XCTAssertEqual(notices.filter { $0.contains("in/empty") }.count, 1, "\(notices)")
        XCTAssertEqual(events(all, "rejected").map { $0["path"] as? String }, ["in/empty/portrait.jpg"])
    }

    func testTemplateWithoutPlaceholderIsAUsageError() throws {
        makeTree()
        assertFailure(try collage(["--per-folder", "in", "-o", "out/album.jpg"]), status: 64, mentions: ["{dir}"])
        assertFailure(try collage(["--per-folder", "in"]), status: 64)
        assertFailure(try collage(["--per-folder", "-", "-o", "out/{dir}.jpg"], stdin: b("in/top.jpg\n")), status: 64)
        XCTAssertEqual(listingText("out"), [])
    }

    /// Two folders named x under {dir}: the first collage stays, the second
    /// folder is reported (stderr, a JSON event naming it) and not written.
    func testSameNameUnderDirDoesNotOverwrite() throws {
        for folder in ["in", "in/a", "in/a/x", "in/b", "in/b/x", "out"] { makeFolder(folder) }
        writeImage(palette[0], to: "in/a/x/1.png")
        writeImage(palette[1], to: "in/b/x/2.png")
        let result = try collage(["--per-folder", "in", "-o", "out/{dir}.png"])
        XCTAssertEqual(result.stdoutText, "out/x.png\n")
        XCTAssertEqual(result.status, 65, "a folder whose collage could not be written\n\(result.summary)")
        XCTAssertTrue(result.stderrLines.dropLast().contains { $0.contains("in/b/x") }, result.summary)
        if let picture = decoded("out/x.png") { assertTiles(picture, [palette[0]], tolerance: 2) }
        XCTAssertEqual(listingText("out"), ["x.png"])

        let json = try collage(["--per-folder", "in", "--json", "-o", "out/{dir}.png"])
        let all = assertValidEventStream(json, "same {dir} twice")
        XCTAssertEqual(events(all, "written").map { $0["output"] as? String }, ["out/x.png"])
        XCTAssertTrue(all.dropLast().contains { ($0["path"] as? String) == "in/b/x" || (($0["message"] as? String)?.contains("in/b/x") ?? false) },
                      "an event names the second folder")
        if let picture = decoded("out/x.png") { assertTiles(picture, [palette[0]], tolerance: 2) }
    }

    /// With --sheets, {n} and {dir} together: sheets of two per folder.
    func testWithSheets() throws {
        makeTree()
        let result = try collage(["--per-folder", "--sheets", "--max", "2", "in", "-o", "out/{dir}-{n}.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        let names = ["in-0001.jpg", "summer-0001.jpg", "winter-0001.jpg", "winter-0002.jpg"]
        XCTAssertEqual(result.stdoutText, names.map { "out/\($0)\n" }.joined())
        XCTAssertEqual(listingText("out"), names.sorted())
        for (name, colours) in zip(names, [[top], summer, Array(winter[0..<2]), [winter[2]]]) {
            if let picture = decoded("out/" + name) { assertTiles(picture, colours, tolerance: 40) }
        }
    }

    /// README's cron line: --per-folder --skip-unchanged. The second night
    /// rewrites nothing; a change in one album redoes that album only.
    func testWithSkipUnchanged() throws {
        makeTree()
        let arguments = ["--per-folder", "--skip-unchanged", "--quiet", "in", "-o", "out/{path}.jpg"]
        let names = ["in.jpg", "2024_summer.jpg", "2024_winter.jpg"]
        let listing = names.map { "out/\($0)\n" }.joined()
        assertSuccess(try collage(arguments), stdout: listing)
        var times = names.map { fileTime("out/" + $0) }
        assertSuccess(try collage(arguments), stdout: listing)
        XCTAssertEqual(names.map { fileTime("out/" + $0) }, times, "nothing rewritten")
        setModificationTime("in/2024/winter/d.jpg", seconds: 1_600_000_000)
        assertSuccess(try collage(arguments), stdout: listing)
        let after = names.map { fileTime("out/" + $0) }
        XCTAssertEqual(after[0], times[0])
        XCTAssertEqual(after[1], times[1])
        XCTAssertNotEqual(after[2], times[2], "the changed album is redone")
        times = after
        XCTAssertEqual(litter("out"), [])
    }

    /// --dry-run: the plan of each folder, nothing written.
    func testDryRun() throws {
        makeTree()
        let result = try collage(["--per-folder", "--dry-run", "in", "-o", "out/{dir}.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "out/in.jpg\tin/top.jpg\n"
                       + "out/summer.jpg\tin/2024/summer/a.jpg\nout/summer.jpg\tin/2024/summer/b.jpg\n"
                       + "out/winter.jpg\tin/2024/winter/c.jpg\nout/winter.jpg\tin/2024/winter/d.jpg\n"
                       + "out/winter.jpg\tin/2024/winter/e.jpg\n")
        XCTAssertEqual(listingText("out"), [])
    }
}
