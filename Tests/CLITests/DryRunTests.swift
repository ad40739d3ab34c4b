import Foundation
import Glibc
import Vips
import XCTest

/// `--dry-run`: headers only. It prints `OUTPUT<TAB>IMAGE` lines
/// (or `planned` events) that match what a real run would use, writes
/// nothing at all, and decodes no pixels.
final class DryRunTests: CLITestCase {
    /// The (output, image) pairs of a real run, from its `written` events.
    private func realPairs(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let result = try collage(arguments + ["--json"])
        XCTAssertTrue([0, 65].contains(result.status), result.summary, file: file, line: line)
        return events(jsonEvents(result, file: file, line: line), "written").flatMap { event in
            (event["images"] as? [String] ?? []).map { (event["output"] as? String ?? "") + "\t" + $0 }
        }
    }

    /// Eight good images among a portrait, a text file, an image over
    /// --max-pixels: the plan is what the real run then uses, with and
    /// without --sheets, in lines and in `planned` events.
    func testThePlanIsWhatARealRunUses() throws {
        makeFolder("in")
        for index in 0..<8 { writeImage(palette[index], to: "in/\(index)-good.png") }
        writeImage(palette[8], to: "in/2a-portrait.png", width: 48, height: 64)
        write(b("text\n"), to: "in/4a-text.jpg")
        writeImage(palette[9], to: "in/5a-large.png", width: 400, height: 300)
        makeFolder("plan")
        makeFolder("real")

        for options in [["--sheets", "--max", "3"], [], ["--max", "4", "--require-even"], ["--sheets", "--max", "3", "--require-even"]] {
            let plan = try collage(["in", "--dry-run", "--max-pixels", "100000", "-o", "real/s.png"] + options)
            XCTAssertEqual(plan.status, 0, "\(options)\n\(plan.summary)")
            let real = try realPairs(["in", "--max-pixels", "100000", "-o", "real/s.png"] + options)
            XCTAssertFalse(real.isEmpty)
            XCTAssertEqual(plan.stdoutLines, real, "the plan of \(options) is what the real run used")

            let json = try collage(["in", "--dry-run", "--json", "--max-pixels", "100000", "-o", "real/s.png"] + options)
            let all = assertValidEventStream(json, "--dry-run \(options)")
            let planned = events(all, "planned").flatMap { event in
                (event["images"] as? [String] ?? []).map { (event["output"] as? String ?? "") + "\t" + $0 }
            }
            XCTAssertEqual(planned, real, "planned events of \(options)")
            for event in events(all, "planned") {
                XCTAssertEqual(event["width"] as? Int, 1200)
                XCTAssertEqual(event["height"] as? Int, 800)
            }
            XCTAssertEqual(events(all, "written").count, 0)
            XCTAssertEqual(events(all, "placed").count, 0)
        }
    }

    /// Nothing is written: the output folder and the working folder are
    /// as they were (no output, temporary, state or lock file), an existing
    /// output keeps its bytes and mtime, with --sheets, --skip-unchanged
    /// and --per-folder too.
    func testWritesNothing() throws {
        makeFolder("in")
        makeFolder("in/sub")
        for index in 0..<5 { writeImage(palette[index], to: "in/\(index).png") }
        writeImage(palette[5], to: "in/sub/x.png")
        makeFolder("out")
        write(image(palette[6], width: 120, height: 80, suffix: ".jpg"), to: "out/old.jpg")
        let oldTime = fileTime("out/old.jpg")
        let outBefore = listing("out"), hereBefore = listing()

        for arguments in [["in", "-o", "out/old.jpg"],
                          ["in", "--sheets", "--max", "2", "-o", "out/s-{n}.jpg"],
                          ["in", "--skip-unchanged", "-o", "out/old.jpg"],
                          ["in", "--skip-unchanged", "--sheets", "--max", "2", "-o", "out/s.jpg"],
                          ["--per-folder", "in", "-o", "out/{path}.jpg"],
                          ["in", "--json", "-o", "out/new.png"]] {
            let result = try collage(arguments + ["--dry-run"])
            XCTAssertEqual(result.status, 0, "\(arguments)\n\(result.summary)")
            XCTAssertFalse(result.stdout.isEmpty, "\(arguments): a plan is printed")
            XCTAssertEqual(listing("out"), outBefore, "\(arguments): the output folder is unchanged")
            XCTAssertEqual(listing(), hereBefore, "\(arguments): the working folder is unchanged")
            XCTAssertEqual(fileTime("out/old.jpg"), oldTime, "\(arguments): the old output is untouched")
        }
    }

    /// A JPEG with a valid header and truncated data: a real run fails to
    /// decode it; the dry run, which decodes nothing, plans it.
    func testATruncatedImageIsPlanned() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        let noise = try noisyJPEG(width: 2000, height: 1300, bands: 3)
        write(Array(noise.prefix(noise.count * 3 / 10)), to: "in/b-cut.jpg")
        writeImage(palette[1], to: "in/c.png")

        settle()
        let real = try collage(["in", "--json", "-o", "out.jpg"])
        XCTAssertEqual(real.status, 65, real.summary)
        XCTAssertEqual(events(jsonEvents(real), "failed").map { $0["path"] as? String }, ["in/b-cut.jpg"])
        XCTAssertEqual(events(jsonEvents(real), "written").first?["images"] as? [String], ["in/a.png", "in/c.png"])
        XCTAssertEqual(unlink(path("out.jpg")), 0)

        settle()
        let plan = try collage(["in", "--dry-run", "-o", "out.jpg"])
        assertSuccess(plan, stdout: "out.jpg\tin/a.png\nout.jpg\tin/b-cut.jpg\nout.jpg\tin/c.png\n")
        settle()
        let json = try collage(["in", "--dry-run", "--json", "-o", "out.jpg"])
        let all = assertValidEventStream(json, "dry run over a truncated image")
        XCTAssertEqual(events(all, "planned").first?["images"] as? [String], ["in/a.png", "in/b-cut.jpg", "in/c.png"])
        XCTAssertEqual(events(all, "failed").count, 0)
        XCTAssertEqual(events(all, "accepted").first { $0["path"] as? String == "in/b-cut.jpg" }?["width"] as? Int, 2000,
                       "its size comes from the header")
        XCTAssertFalse(exists("out.jpg"))
    }

    /// Four links to a 10000x10000 JPEG whose data after the header is cut
    /// off: the dry run plans all four from their headers (a real run would
    /// fail to decode each).
    func testAHugeImageCostsOnlyItsHeader() throws {
        makeFolder("in")
        write(Array(try noisyJPEG(width: 10000, height: 10000).prefix(4096)), to: "in/1.jpg")
        for index in 2...4 { hardLink("in/1.jpg", b("in/\(index).jpg")) }

        let plan = try collage(["in", "--max", "4", "--dry-run", "-o", "out.jpg"])
        assertSuccess(plan, stdout: (1...4).map { "out.jpg\tin/\($0).jpg\n" }.joined())
        XCTAssertFalse(exists("out.jpg"))
    }
}
