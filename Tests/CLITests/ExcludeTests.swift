import Foundation
import Glibc
import Vips
import XCTest

/// `--exclude GLOB` (repeatable) and `--exclude-from FILE`: matched on the
/// bytes of the path below each INPUT folder, `*` within a name, `**`
/// across folders; a matching folder is not entered; a bad pattern or a
/// file that cannot be read is a usage error before any image is read.
/// Every kind of run sees the same inputs.
final class ExcludeTests: CLITestCase {
    /// in/a.png in/b.tmp.png in/keep/c.png in/keep/d.tmp.png in/skip/e.png
    /// in/skip/deep/f.png, each its own colour (palette 0 to 5).
    private func makeTree() {
        makeFolder("in")
        makeFolder("in/keep")
        makeFolder("in/skip")
        makeFolder("in/skip/deep")
        for (index, name) in ["a.png", "b.tmp.png", "keep/c.png", "keep/d.tmp.png", "skip/e.png",
                              "skip/deep/f.png"].enumerated() {
            writeImage(palette[index], to: "in/" + name)
        }
    }

    private func used(_ arguments: [String], stdin: [UInt8]? = nil,
                      file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let result = try collage(arguments + ["--json", "--sheets", "-o", "s-{n}.png"], stdin: stdin)
        XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
        return events(assertValidEventStream(result, arguments.joined(separator: " "), file: file, line: line), "written")
            .flatMap { $0["images"] as? [String] ?? [] }
    }

    func testStarWithinANameAndDoubleStarAcrossFolders() throws {
        makeTree()
        XCTAssertEqual(try used(["in", "--exclude", "*.tmp.png"]),
                       ["in/a.png", "in/keep/c.png", "in/keep/d.tmp.png", "in/skip/deep/f.png", "in/skip/e.png"],
                       "* stays in the top folder")
        XCTAssertEqual(try used(["in", "--exclude", "**/*.tmp.png"]),
                       ["in/a.png", "in/keep/c.png", "in/skip/deep/f.png", "in/skip/e.png"])
        XCTAssertEqual(try used(["in", "--exclude", "skip", "--exclude", "keep/*.tmp.png"]),
                       ["in/a.png", "in/b.tmp.png", "in/keep/c.png"], "repeatable; a folder's name leaves it out")
        XCTAssertEqual(try used(["in", "--exclude=skip/**"]), ["in/a.png", "in/b.tmp.png", "in/keep/c.png",
                                                              "in/keep/d.tmp.png"])
        XCTAssertEqual(try used(["in/keep", "--exclude", "c.png"]), ["in/keep/d.tmp.png"],
                       "relative to the INPUT folder it is given with")
        XCTAssertEqual(try used(["-", "--exclude", "skip"], stdin: b("in/skip/e.png\nin/a.png\n")),
                       ["in/skip/e.png", "in/a.png"], "a path named on standard input is still tried")
    }

    /// strace: an excluded folder is never opened.
    func testAnExcludedFolderIsNotEntered() throws {
        guard haveProgram("strace") else { throw XCTSkip("strace is not installed") }
        makeTree()
        let log = path("strace.log")
        let result = try runProcess([b("strace"), b("-f"), b("-e"), b("trace=openat"), b("-o"), b(log)]
                                    + command([b("in"), b("--exclude"), b("skip/"), b("-o"), b("o.png")]),
                                    directory: dir)
        XCTAssertEqual(result.status, 0, result.summary)
        let trace = String(decoding: contents(b(log)) ?? [], as: UTF8.self)
        XCTAssertTrue(trace.contains("\"in/keep\""), trace)
        XCTAssertFalse(trace.contains("in/skip"), "the excluded folder is not opened\n" + trace)
    }

    func testNamesThatAreNotUTF8() throws {
        makeFolder("in")
        let odd = b("caf") + [0xE9]  // Latin-1 é
        makeFolder("in/plain")
        XCTAssertEqual(withCPath(path(b("in/") + odd)) { mkdir($0, 0o755) }, 0)
        writeImage(palette[0], to: b("in/") + odd + b("/1.png"))
        writeImage(palette[1], to: b("in/x-") + [0xFF] + b(".png"))
        writeImage(palette[2], to: "in/plain/2.png")
        // On the command line, as bytes.
        let byArgument = try collage([b("in"), b("--exclude"), odd, b("--exclude"), b("x-") + [0xFF] + b("*"),
                                      b("--json"), b("-o"), b("o.png")])
        XCTAssertEqual(byArgument.status, 0, byArgument.summary)
        XCTAssertEqual(events(jsonEvents(byArgument), "written").first?["images"] as? [String], ["in/plain/2.png"])
        // From a file, as bytes.
        write(b("# odd names\n") + odd + b("/\n") + b("x-") + [0xFF] + b(".png\n"), to: "patterns")
        let byFile = try collage(["in", "--exclude-from", "patterns", "--json", "-o", "o.png"])
        XCTAssertEqual(byFile.status, 0, byFile.summary)
        XCTAssertEqual(events(jsonEvents(byFile), "written").first?["images"] as? [String], ["in/plain/2.png"])
    }

    func testExcludeFromWithCommentsAndBlankLines() throws {
        makeTree()
        write(b("# scratch files\n\n**/*.tmp.png\r\n   \n# and a folder\nskip/\n"), to: "ignore.txt")
        XCTAssertEqual(try used(["in", "--exclude-from", "ignore.txt"]), ["in/a.png", "in/keep/c.png"])
        XCTAssertEqual(try used(["in", "--exclude-from", "ignore.txt", "--exclude", "a.png"]), ["in/keep/c.png"])
    }

    func testBadPatternsAndUnreadableFilesAreUsageErrors() throws {
        makeTree()
        assertFailure(try collage(["in", "--exclude", "a[", "-o", "o.png"]), status: 64, mentions: ["--exclude", "a["])
        assertFailure(try collage(["in", "--exclude", "", "-o", "o.png"]), status: 64, mentions: ["--exclude"])
        assertFailure(try collage(["in", "--exclude", "***", "-o", "o.png"]), status: 64, mentions: ["***"])
        assertFailure(try collage(["in", "--exclude-from", "missing.txt", "-o", "o.png"]), status: 64,
                      mentions: ["--exclude-from", "missing.txt"])
        assertFailure(try collage(["in", "--exclude-from", "in", "-o", "o.png"]), status: 64, mentions: ["--exclude-from"])
        write(b("ok\n[broken\n"), to: "bad.txt")
        assertFailure(try collage(["in", "--exclude-from", "bad.txt", "-o", "o.png"]), status: 64,
                      mentions: ["bad.txt", "line 2"])
        XCTAssertFalse(exists("o.png"))
    }

    /// --dry-run, --per-folder, --shard and --skip-unchanged see the inputs
    /// a plain run sees; changing the exclusions redoes an unchanged output.
    func testEveryKindOfRunSeesTheSameInputs() throws {
        makeTree()
        let exclusions = ["--exclude", "skip/", "--exclude", "**/*.tmp.png"]
        let plan = try collage(["in", "--dry-run", "-o", "o.png"] + exclusions)
        assertSuccess(plan, stdout: "o.png\tin/a.png\no.png\tin/keep/c.png\n")
        makeFolder("out")
        assertSuccess(try collage(["in", "--per-folder", "-o", "out/{path}.png"] + exclusions),
                      stdout: "out/in.png\nout/keep.png\n")
        XCTAssertEqual(try used(["in", "--max", "1", "--shard", "1/2"] + exclusions), ["in/keep/c.png"])
        let perFolder = try collage(["in", "--per-folder", "--exclude", "keep/c.png", "--json", "-o", "out/x-{path}.png"])
        XCTAssertEqual(perFolder.status, 0, perFolder.summary)
        XCTAssertEqual(events(assertValidEventStream(perFolder, "--per-folder --exclude"), "written")
                        .flatMap { $0["images"] as? [String] ?? [] },
                       ["in/a.png", "in/b.tmp.png", "in/keep/d.tmp.png", "in/skip/e.png", "in/skip/deep/f.png"],
                       "per folder, patterns still match below the INPUT")

        let arguments = ["in", "--skip-unchanged", "--json", "-o", "kept.png"]
        let first = try collage(arguments + exclusions)
        XCTAssertEqual(events(jsonEvents(first), "written").count, 1, first.summary)
        let again = try collage(arguments + exclusions)
        XCTAssertEqual(events(jsonEvents(again), "unchanged").first?["images"] as? [String], ["in/a.png", "in/keep/c.png"])
        let changed = try collage(arguments + ["--exclude", "skip/"])
        XCTAssertEqual(events(jsonEvents(changed), "written").first?["images"] as? [String],
                       ["in/a.png", "in/b.tmp.png", "in/keep/c.png", "in/keep/d.tmp.png"],
                       "other exclusions: the output is made again")
    }

    /// --watch: a photo added to an excluded folder is not in the redone
    /// collage; one added beside the others is. Waits on the written
    /// events, not on time.
    func testAWatchSeesTheSameInputs() throws {
        makeTree()
        let process = try RunningProcess(arguments: command([b("--watch"), b("--interval"), b("0.2"), b("--json"),
                                                             b("--exclude"), b("skip/"), b("in"), b("-o"), b("w.png")]),
                                         directory: dir)
        func written() -> [[String]] {
            String(decoding: process.stdout, as: UTF8.self).split(separator: "\n")
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["event"] as? String == "written" }.map { $0["images"] as? [String] ?? [] }
        }
        XCTAssertTrue(process.pump(until: monotonicNow() + 60) { written().count == 1 }, "the first pass")
        writeAtomically(image(palette[6]), to: "in/skip/g.png")  // whole when a pass sees it
        writeAtomically(image(palette[7]), to: "in/keep/h.png")
        XCTAssertTrue(process.pump(until: monotonicNow() + 60) { written().count == 2 }, "the pass that saw h.png")
        process.send(SIGTERM)
        _ = process.wait(timeout: 30)
        let kept = ["in/a.png", "in/b.tmp.png", "in/keep/c.png", "in/keep/d.tmp.png"]
        XCTAssertEqual(written(), [kept, kept + ["in/keep/h.png"]], "in/skip/g.png is never in it")
    }
}
