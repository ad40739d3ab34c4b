import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Inputs": directory order, dot names, the extension filter,
/// explicit files, symbolic links, and content (not name) picking the decoder.
final class DirectoryOrderTests: CLITestCase {
    private func usedImages(_ arguments: [String], file: StaticString = #filePath,
                            line: UInt = #line) throws -> [String]? {
        let result = try collage(arguments + ["--json", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
        let written = events(jsonEvents(result, file: file, line: line), "written")
        XCTAssertEqual(written.count, 1, result.summary, file: file, line: line)
        return written.first?["images"] as? [String]
    }

    /// Byte order of names (upper case before lower, "a" before "a.png",
    /// UTF-8 after ASCII), depth first, dot names skipped (files and
    /// folders), extensions case-insensitive, other names ignored in a scan,
    /// and a PNG named .jpg used (the content decides).
    func testScanOrderAndFilter() throws {
        makeFolder("d")
        makeFolder("d/a")
        makeFolder("d/.hidden-folder")
        makeFolder("d/b")
        makeFolder("d/b/c")
        var colour = 0
        func put(_ name: String) { writeImage(palette[colour % palette.count], to: "d/" + name); colour += 1 }
        put("B.png")
        put("Z.Jpeg")
        put("a/y.png")
        put("a/x.JPG")
        put("a.png")
        put("b/c/deep.TIFF")        // a PNG named .TIFF: content decides
        put("b/0.webp")             // a PNG named .webp
        put("b.gif")                // a PNG named .gif
        put("c.txt")                // not an image name: skipped by the scan
        put("noextension")
        put("png")                  // a name that is only an extension
        put(".hidden.png")
        put(".hidden-folder/q.png")
        put("\u{E9}t\u{E9}.png")    // UTF-8 bytes sort after ASCII
        put("png.jpg")              // a PNG named .jpg
        put("shot.HEIC")            // a PNG named .HEIC
        put("x.jPeG")

        let images = try usedImages(["d", "--max", "20"])
        XCTAssertEqual(images, [
            "d/B.png", "d/Z.Jpeg",
            "d/a/x.JPG", "d/a/y.png",
            "d/a.png",
            "d/b/0.webp", "d/b/c/deep.TIFF",
            "d/b.gif",
            "d/png.jpg", "d/shot.HEIC", "d/x.jPeG",
            "d/\u{E9}t\u{E9}.png",
        ])
    }

    /// A file named on the command line is tried whatever its name: a PNG
    /// named photo.data, one with no extension, a dot file.
    func testExplicitFilesAreAlwaysTried() throws {
        writeImage(palette[0], to: "photo.data")
        writeImage(palette[1], to: "noextension")
        writeImage(palette[2], to: ".hidden")
        let images = try usedImages(["photo.data", "noextension", ".hidden"])
        XCTAssertEqual(images, ["photo.data", "noextension", ".hidden"])
        if let picture = decoded("out.png") { assertTiles(picture, Array(palette[0..<3]), tolerance: 2) }

        // Also from standard input.
        let result = try collage(["-", "--json", "-o", "out.png"], stdin: b("photo.data\nnoextension\n"))
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(events(jsonEvents(result), "written").first?["images"] as? [String], ["photo.data", "noextension"])
    }

    /// Several INPUTs: used in command-line order, each folder in scan order.
    func testInputsInCommandLineOrder() throws {
        makeFolder("one")
        makeFolder("two")
        writeImage(palette[0], to: "two/b.png")
        writeImage(palette[1], to: "two/a.png")
        writeImage(palette[2], to: "one/z.png")
        writeImage(palette[3], to: "single.png")
        let images = try usedImages(["two", "single.png", "one"])
        XCTAssertEqual(images, ["two/a.png", "two/b.png", "single.png", "one/z.png"])
    }

    /// Links to files are followed; links to folders are not, unless
    /// --follow-links, and then a loop is reported, never followed forever.
    func testSymbolicLinks() throws {
        makeFolder("real")
        writeImage(palette[0], to: "real/r.png")
        makeFolder("d")
        writeImage(palette[1], to: "d/a.png")
        symbolicLink("../real/r.png", "d/b-link.png")
        symbolicLink("../real", "d/c-folder")
        symbolicLink(".", "d/d-loop")
        symbolicLink("../nowhere.png", "d/e-dangling.png")

        let plain = try collage(["d", "--json", "-o", "out.png"])
        XCTAssertEqual(plain.status, 65, "the dangling link is an input that cannot be read\n\(plain.summary)")
        let all = jsonEvents(plain)
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["d/a.png", "d/b-link.png"])
        XCTAssertEqual(events(all, "failed").map { $0["path"] as? String }, ["d/e-dangling.png"])

        let followed = try collage(["d", "--follow-links", "--json", "-o", "out.png"], timeout: 30)
        XCTAssertFalse(followed.timedOut, "a loop is not followed forever")
        let images = events(jsonEvents(followed), "written").first?["images"] as? [String]
        XCTAssertEqual(images, ["d/a.png", "d/b-link.png", "d/c-folder/r.png"])
        XCTAssertTrue(followed.stderrText.contains("d/d-loop"), "the loop is reported\n\(followed.summary)")
    }

    /// Portrait is decided on the displayed size: a sample stored portrait
    /// with EXIF orientation 6 is used; one stored landscape with
    /// orientation 6 is rejected; a square is kept.
    func testPortraitAfterEXIFOrientation() throws {
        makeFolder("in")
        copySample("storm-rotated.jpg", to: "in/a-storm-rotated.jpg")
        copySample("wood-sideways.jpg", to: "in/b-wood-sideways.jpg")
        copySample("blinds-portrait.jpg", to: "in/c-blinds.jpg")
        writeImage(palette[0], to: "in/d-square.png", width: 50, height: 50)
        let result = try collage(["in", "--json", "-o", "out.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stderr, [], "portraits are skipped quietly\n\(result.summary)")
        let all = jsonEvents(result)
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a-storm-rotated.jpg", "in/d-square.png"])
        XCTAssertEqual(events(all, "rejected").compactMap { $0["path"] as? String },
                       ["in/b-wood-sideways.jpg", "in/c-blinds.jpg"])
        XCTAssertEqual(Set(events(all, "rejected").compactMap { $0["reason"] as? String }), ["portrait"])

        let allowed = try collage(["in", "--allow-portrait", "--json", "-o", "out.jpg"])
        XCTAssertEqual(events(jsonEvents(allowed), "written").first?["images"] as? [String],
                       ["in/a-storm-rotated.jpg", "in/b-wood-sideways.jpg", "in/c-blinds.jpg", "in/d-square.png"])
    }
}
