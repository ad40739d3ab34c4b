import Foundation
import Vips
import XCTest

/// Captions of files named in every script, through the binary: with the
/// package's fonts nothing is a missing-glyph box (`-v` would say so) and
/// emoji are in colour; on a machine with DejaVu alone (a fontconfig that
/// knows only it), `-v` names the font package each caption needed, and
/// a run off a terminal still says nothing.
final class ScriptCaptionTests: CLITestCase {
    private let light = RGB(red: 200, green: 220, blue: 255)
    /// Stems, in the order the walk finds them (byte order of the names).
    private let names = ["Crème brûlée Ångström", "Party 🎉😀👍🏽", "Καλημέρα κόσμε", "Привет, мир", "שלום עולם",
                         "مرحبا بالعالم", "नमस्ते दुनिया", "東京の夜 서울"]

    private func writeScripts() {
        makeFolder("in")
        for name in names { writeImage(light, to: "in/\(name).png", width: 320, height: 240) }
    }

    private func run(_ arguments: [String], fonts: String? = nil) throws -> ProcessResult {
        guard let fonts else { return try collage(arguments) }
        return try RunningProcess(arguments: command(arguments.map(b)), directory: dir,
                                  environment: ["FONTCONFIG_FILE": fonts]).wait(timeout: 120)
    }

    private let arguments = ["--label", "{stem}", "--sheets", "--max", "8", "--tile", "4x2", "--size", "1600x800"]

    func testEveryScriptIsCaptionedWithRealGlyphsAndEmojiInColour() throws {
        writeScripts()
        let result = try run(arguments + ["-v", "--json", "in", "-o", "s.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let notices = events(jsonEvents(result), "notice").compactMap { $0["message"] as? String }
        XCTAssertEqual(notices.filter { $0.contains("no installed font") }, [], "no missing glyphs")
        let placed = events(jsonEvents(result), "placed")
        XCTAssertEqual(placed.compactMap { $0["label"] as? String }, names)
        guard let picture = decoded("s-0001.png") else { return }
        for (index, event) in placed.enumerated() {
            let (x, y, h) = (event["x"] as? Int ?? 0, event["y"] as? Int ?? 0, event["height"] as? Int ?? 0)
            var dark = 0, coloured = 0
            for row in (y + h)..<min(picture.height, (index / 4 + 1) * 400) {
                for column in x..<(x + 400) {
                    let pixel = picture.pixel(x: column, y: row)
                    if pixel.red < 100 && pixel.green < 100 && pixel.blue < 100 { dark += 1 }
                    if Int(pixel.red) - Int(pixel.blue) > 100 { coloured += 1 }
                }
            }
            XCTAssertGreaterThan(dark, 30, "\(names[index]): ink under the image")
            // Yellow faces and skin on a white band: only the emoji caption has them.
            if names[index].hasPrefix("Party") {
                XCTAssertGreaterThan(coloured, 40, "emoji in colour")
            } else {
                XCTAssertLessThan(coloured, 5, names[index])
            }
        }
    }

    /// A fontconfig that knows only the fonts of `folders`; its path.
    private func fontconfig(_ folders: [String]) -> String {
        makeFolder("fontconfig")
        write(b("""
        <?xml version="1.0"?>
        <!DOCTYPE fontconfig SYSTEM "fonts.dtd">
        <fontconfig>
        \(folders.map { "  <dir>\($0)</dir>\n" }.joined())  <cachedir>\(path("fontconfig"))</cachedir>
        </fontconfig>

        """), to: "fontconfig/fonts.conf")
        return path("fontconfig/fonts.conf")
    }

    func testOnAMachineWithDejaVuAloneVerboseNamesTheFontPackage() throws {
        writeScripts()
        let fonts = fontconfig(["/usr/share/fonts/truetype/dejavu"])
        let verbose = try run(arguments + ["-v", "in", "-o", "v.png"], fonts: fonts)
        XCTAssertEqual(verbose.status, 0, verbose.summary)
        let lines = verbose.stderrLines.filter { $0.contains("no installed font") }
        func line(_ stem: String) -> String { lines.first { $0.contains(stem) } ?? "" }
        XCTAssertTrue(line("नमस्ते").hasSuffix("install fonts-noto-core"), verbose.summary)
        XCTAssertTrue(line("न (U+0928)").contains("its caption has characters no installed font has"), verbose.summary)
        XCTAssertTrue(line("東京").hasSuffix("install fonts-wqy-microhei"), verbose.summary)
        XCTAssertTrue(line("Party").hasSuffix("install fonts-noto-color-emoji"), verbose.summary)
        XCTAssertEqual(lines.count, 3, "Latin, Greek, Cyrillic, Hebrew and Arabic are DejaVu's\n\(verbose.summary)")

        let quiet = try run(arguments + ["in", "-o", "q.png"], fonts: fonts)
        XCTAssertEqual(quiet.status, 0, quiet.summary)
        XCTAssertEqual(quiet.stderr, [], "off a terminal, a run that ends well says nothing")
    }

    /// The package's other choice for emoji, Symbola (fonts-symbola): no
    /// colour, but no box either.
    func testWithSymbolaInsteadOfColourEmojiTheyAreMonochromeNotBoxes() throws {
        let symbola = "/usr/share/fonts/truetype/ancient-scripts"
        guard FileManager.default.fileExists(atPath: symbola + "/Symbola_hint.ttf") else {
            throw XCTSkip("fonts-symbola is not installed (scripts/test installs it)")
        }
        makeFolder("in")
        writeImage(light, to: "in/Party 🎉😀👍🏽.png", width: 320, height: 240)
        let result = try run(["--label", "{stem}", "-v", "--json", "in", "-o", "m.png"],
                             fonts: fontconfig(["/usr/share/fonts/truetype/dejavu", symbola]))
        XCTAssertEqual(result.status, 0, result.summary)
        let notices = events(jsonEvents(result), "notice").compactMap { $0["message"] as? String }
        XCTAssertEqual(notices.filter { $0.contains("no installed font") }, [], "no boxes")
        let placed = try XCTUnwrap(events(jsonEvents(result), "placed").first)
        guard let picture = decoded("m.png") else { return }
        var dark = 0, coloured = 0
        for row in ((placed["height"] as? Int ?? 0))..<picture.height {
            for column in 0..<picture.width {
                let pixel = picture.pixel(x: column, y: row)
                if pixel.red < 100 && pixel.green < 100 && pixel.blue < 100 { dark += 1 }
                if Int(pixel.red) - Int(pixel.blue) > 100 { coloured += 1 }
            }
        }
        XCTAssertGreaterThan(dark, 100, "the caption, emoji included, in black")
        XCTAssertLessThan(coloured, 5, "monochrome")
    }
}
