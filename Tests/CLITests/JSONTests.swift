import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Machine-readable output: --json".
final class JSONTests: CLITestCase {
    /// One run meeting every kind of event: a portrait, an image over
    /// --max-pixels, a text file and an SVG named .jpg (unsupported), a
    /// truncated JPEG (failed), and two good images (written). Every line of
    /// stdout is a JSON object; the summary is last and its counts match the
    /// events; nothing else is on stdout.
    func testEveryEventKindAndTheSummary() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a-good.png")
        writeImage(palette[1], to: "in/b-portrait.png", width: 48, height: 64)
        writeImage(palette[2], to: "in/c-big.png", width: 1000, height: 700)  // 700000 pixels
        write(b("just some text\n"), to: "in/d-text.jpg")
        let whole = contents(b(Package.samples + "/aqua.jpg"))!  // 1024x640 = 655360 pixels
        write(Array(whole.prefix(whole.count / 2)), to: "in/e-truncated.jpg")
        write(b("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"200\">"
                + "<rect width=\"300\" height=\"200\" fill=\"red\"/></svg>\n"), to: "in/f-svg.jpg")
        writeImage(palette[3], to: "in/g-good.png")

        settle()
        let result = try collage(["in", "--json", "--max-pixels", "660000", "-o", "out.png"])
        XCTAssertEqual(result.status, 65, "an input failed, a collage was written\n\(result.summary)")
        let all = jsonEvents(result)
        XCTAssertEqual(all.count, result.stdoutLines.count, "nothing but JSON on stdout")

        let rejected = events(all, "rejected")
        let reasons = Dictionary(uniqueKeysWithValues: rejected.compactMap { event -> (String, String)? in
            guard let path = event["path"] as? String, let reason = event["reason"] as? String else { return nil }
            return (path, reason)
        })
        XCTAssertEqual(reasons, ["in/b-portrait.png": "portrait", "in/c-big.png": "too-large",
                                 "in/d-text.jpg": "unsupported", "in/f-svg.jpg": "unsupported"])

        let failed = events(all, "failed")
        XCTAssertEqual(failed.map { $0["path"] as? String }, ["in/e-truncated.jpg"])
        let error = failed.first?["error"] as? String ?? ""
        XCTAssertFalse(error.isEmpty, "failed says why")

        let written = events(all, "written")
        XCTAssertEqual(written.count, 1)
        if let sheet = written.first {
            XCTAssertEqual(sheet["output"] as? String, "out.png")
            XCTAssertEqual(sheet["images"] as? [String], ["in/a-good.png", "in/g-good.png"], "in tile order")
            XCTAssertEqual(sheet["width"] as? Int, 1200)
            XCTAssertEqual(sheet["height"] as? Int, 800)
        }
        if let picture = decoded("out.png") { assertTiles(picture, [palette[0], palette[3]], tolerance: 2) }

        XCTAssertEqual(all.last?["event"] as? String, "summary", "summary is the last line")
        XCTAssertEqual(events(all, "summary").count, 1)
        if let summary = all.last {
            XCTAssertEqual(summary["written"] as? Int, written.count)
            XCTAssertEqual(summary["used"] as? Int, 2)
            XCTAssertEqual(summary["rejected"] as? Int, rejected.count)
            XCTAssertEqual(summary["failed"] as? Int, failed.count)
        }

        // stderr: one warning per failed file, then the one line of the
        // non-zero exit; the files passed over (too large, not images, the
        // portrait) are told with --verbose or on a terminal.
        let lines = result.stderrLines
        XCTAssertEqual(lines.count, 2, result.summary)
        XCTAssertEqual(lines.first?.contains("e-truncated.jpg"), true, result.summary)
        XCTAssertFalse(lines.last?.contains("in/") ?? true, "the last line is the overall reason")
        settle()
        let told = try collage(["in", "--json", "--max-pixels", "660000", "-v", "-o", "out.png"]).stderrLines
        for name in ["c-big.png", "d-text.jpg", "e-truncated.jpg", "f-svg.jpg"] {
            XCTAssertEqual(told.filter { $0.contains(name) && !$0.contains("accepted") }.count, 1,
                           "\(name) with -v\n\(told.joined(separator: "\n"))")
        }
    }

    /// An SVG named .jpg is never rendered: libvips would pick its SVG loader
    /// from the content; collage rejects it from the header check, and with
    /// --allow-portrait or any other option it never becomes a tile.
    func testSVGNamedJpgIsNeverRendered() throws {
        makeFolder("in")
        write(b("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"200\">"
                + "<rect width=\"300\" height=\"200\" fill=\"red\"/></svg>\n"), to: "in/drawing.jpg")
        let result = try collage(["in", "--json", "--allow-portrait", "-o", "out.png"])
        XCTAssertEqual(result.status, 66, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, "the one line of the exit (the skip is told with -v)\n\(result.summary)")
        XCTAssertEqual(result.stderrLines.first?.contains("1 rejected"), true, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(events(all, "accepted").count, 0)
        XCTAssertEqual(events(all, "rejected").first?["reason"] as? String, "unsupported")
        XCTAssertFalse(exists("out.png"))
    }

    /// A successful --json run: stderr empty, every line an event object,
    /// summary last with status 0.
    func testSuccessfulRunHasOnlyJSONOnStdout() throws {
        makeFolder("in")
        for index in 0..<4 { writeImage(palette[index], to: "in/\(index).png") }
        let result = try collage(["in", "--json", "-o", "out.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stderr, [], result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(all.count, result.stdoutLines.count)
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], (0..<4).map { "in/\($0).png" })
        XCTAssertEqual(all.last?["event"] as? String, "summary")
        XCTAssertEqual(all.last?["written"] as? Int, 1)
        XCTAssertEqual(all.last?["used"] as? Int, 4)
        XCTAssertEqual(all.last?["rejected"] as? Int, 0)
        XCTAssertEqual(all.last?["failed"] as? Int, 0)
    }
}
