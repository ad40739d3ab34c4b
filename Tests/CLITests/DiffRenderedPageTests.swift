import CollageTestSupport
import Foundation
import Glibc
import XCTest

/// `--diff` on pages rendered by Chromium (headless, from HTML written
/// here), edited as developers edit them: a CSS change of a colour over an
/// area is `changed` even where no pixel differs by more than the
/// threshold (pixelmatch counts none), and the same pages moved by a
/// fraction of a pixel, re-hinted or drawn without sub-pixel glyph
/// positioning are `noise` (or moved by a whole pixel, where whole lines
/// did), never a change, also on pages of look-alike lines (a table of
/// contents, a table, a list).
///
/// Every page is a 640x400 section of one tall page, so Chromium starts
/// three times in all (its default rendering, fontconfig's hinting off,
/// sub-pixel positioning off); the sections are cut out with `vips crop`.
final class DiffRenderedPageTests: RenderedPagesTestCase {
    private static let css = """
        body{margin:0;font:14px DejaVu Sans;color:#333;background:#fff}
        .s{position:absolute;left:0;width:640px;height:400px;overflow:hidden;background:#fff}
        .in{position:absolute;left:0;top:0;width:640px;height:400px}
        .side{position:absolute;left:0;top:0;width:150px;height:400px;background:#f0f0f0;padding:8px;box-sizing:border-box}
        .main{position:absolute;left:160px;top:8px;width:470px}
        .warn{background:#fff4c2;border:1px solid #d9a400;color:#5c4400;padding:8px 12px;margin:8px 0}
        pre{background:#eef8ee;padding:8px;margin:8px 0;font:12px DejaVu Sans Mono}
        button{background:#2b6cb0;color:#fff;border:0;border-radius:4px;padding:6px 16px;font:14px DejaVu Sans}
        a{color:#0645ad}
        .toc{position:absolute;left:20px;top:10px;width:600px;line-height:18px;font-size:13px}
        .toc div{display:flex}.toc span.d{flex:1;border-bottom:1px dotted #999;margin:0 4px 4px}
        table{border-collapse:collapse;position:absolute;left:10px;top:10px;font-size:13px}
        td,th{border:1px solid #ccc;padding:2px 8px}
        tr:nth-child(even){background:#f6f6f6}

        """

    /// A documentation page: a grey sidebar, a warning panel, a code block
    /// on pale green, links and a button.
    private static let doc = """
        <div class="side">Contents<br>Install<br>Usage<br>Options<br>Examples<br>FAQ</div>
        <div class="main"><h2>Install</h2><p>The quick brown fox jumps over the lazy dog. Pack my box with five
        dozen liquor jugs. See <a href="#">the options</a> and <a href="#">the examples</a>.</p>
        <div class="warn">Warning: this page describes a deprecated option.</div>
        <pre>collage --diff base/ shots/ -o d.png
        collage --sheets --max 8</pre><button>Download</button>
        <p>Sphinx of black quartz, judge my vow. How vexingly quick daft zebras jump.</p></div>
        """

    /// Pages of look-alike lines.
    private static let repetitive: [(String, String)] = {
        let names = ["Introduction", "Installing", "Options", "Reading options", "Writing options", "Layouts",
                     "Captions", "Sheets", "Colour", "Faces", "Films", "Order", "Groups", "Print", "Scale out",
                     "Visual diff", "Rules", "Approving", "Events", "Exit status", "Shards"]
        let toc = "<div class=\"toc\">" + names.enumerated().map { index, name in
            "<div><a href=\"#\">\(1 + index / 5).\(1 + index % 5) \(name)</a><span class=\"d\"></span>\(3 + index * 2)</div>"
        }.joined() + "</div>"
        let table = "<table><tr><th>Option</th><th>Default</th><th>Meaning</th></tr>" + (0..<16).map {
            "<tr><td>--opt-\($0)</td><td>none</td><td>What the option does, in a line</td></tr>"
        }.joined() + "</table>"
        let list = "<ul style=\"position:absolute;left:10px;top:0;line-height:20px\">"
            + String(repeating: "<li>Read more about the setting</li>", count: 18) + "</ul>"
        return [("toc", toc), ("table", table), ("list", list)]
    }()

    /// CSS edits of the documentation page, each a real change.
    private static let edits: [(String, String)] = [
        ("panel", ".X .warn{background:#fde9c9;border-color:#d98e00}"),  // the warning panel's fill and border
        ("text", ".X .main p{color:#444}"),                               // the text a shade lighter
        ("link", ".X a{color:#0b3d91}"),                                  // the links' colour
        ("button", ".X button{background:#3574b8}"),                      // the button's fill a shade lighter
        ("theme", ".X pre{background:#eef2fb}"),                          // code blocks pale green -> pale blue
        ("sidebar", ".X .side{background:#f7f3e6}"),                      // the sidebar grey -> cream
    ]

    /// Moves of a fraction of a pixel (CSS transforms): noise.
    private static let moves: [(String, String)] = [
        ("x25", ".X .in{transform:translateX(0.25px)}"), ("x40", ".X .in{transform:translateX(0.4px)}"),
        ("y30", ".X .in{transform:translateY(0.3px)}"), ("xy", ".X .in{transform:translate(0.2px,0.45px)}"),
    ]

    /// The sections of the tall page: name, content, CSS.
    private static var sections: [(String, String, String)] {
        let bases = [("doc", doc)] + repetitive
        var all = bases.map { ($0.0 + "-base", $0.1, "") }
        all += edits.map { ($0.0, doc, $0.1) }
        for (base, content) in bases {
            all += moves.map { (base + "-" + $0.0, content, $0.1) }
        }
        return all
    }

    override func renderPages() throws -> String {
        let folder = NSTemporaryDirectory() + "diff-rendered-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var css = Self.css, body = ""
        for (index, (_, content, extra)) in Self.sections.enumerated() {
            css += extra.replacingOccurrences(of: ".X", with: ".v\(index)") + "\n"
            body += "<div class=\"s v\(index)\" style=\"top:\(index * 400)px\"><div class=\"in\">\(content)</div></div>\n"
        }
        let html = "<!doctype html><html><head><style>\(css)</style></head><body>\(body)</body></html>"
        try html.write(toFile: folder + "/page.html", atomically: true, encoding: .utf8)
        do {
            try renderSections([("page.html", Self.sections.map(\.0))], in: folder, width: 640, height: 400,
                               everyWay: { $0.hasSuffix("-base") })
        } catch {
            _ = try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        return folder
    }

    /// Copies the rendered pairs (baseline, current) into base/ and shots/ under `name`.
    private func pairs(_ list: [(String, String, String)], base: String = "base", shots: String = "shots") throws {
        try copyPairs(list, from: try rendered(), base: base, shots: shots)
    }

    /// A panel's fill and border, a text colour, the links' colour, a
    /// button's fill a shade lighter, a theme's code blocks and sidebar:
    /// each `changed`, its area counted, though few or no pixels differ by
    /// more than the threshold one by one (pixelmatch's `raw`).
    func testColourChangesOverAnAreaAreChanges() throws {
        try pairs(Self.edits.map { ($0.0, "default/doc-base.png", "default/\($0.0).png") })
        let result = try collage(["--diff", "base", "shots", "--json", "--dry-run", "-o", "d.png"])
        XCTAssertEqual(result.status, 1, result.summary)
        let pairs = comparedByName(result)
        // The least each change covers: the panel (about 470x34), the
        // paragraphs' glyphs, the links' glyphs, the button, the code
        // block, the sidebar (150x400 less its text).
        let least = ["panel": 12_000, "text": 1_500, "link": 200, "button": 2_000, "theme": 15_000, "sidebar": 50_000]
        for (name, _) in Self.edits {
            let pair = try XCTUnwrap(pairs[name], name)
            XCTAssertEqual(pair["status"] as? String, "changed", "\(name): \(pair)")
            XCTAssertGreaterThanOrEqual(pair["pixels"] as? Int ?? 0, least[name] ?? 1, "\(name): \(pair)")
            XCTAssertLessThan(pair["raw"] as? Int ?? 0, 50, "\(name): pixelmatch sees (almost) nothing: \(pair)")
            XCTAssertNil(pair["shift"], "\(name): nothing moved")
        }
        // A theme change alone, where no pixel is over the threshold: exit 1.
        let theme = try collage(["--diff", "base/theme.png", "shots/theme.png", "--json", "--dry-run", "-o", "t.png"])
        XCTAssertEqual(theme.status, 1, theme.summary)
        let event = try XCTUnwrap(events(jsonEvents(theme), "compared").first)
        XCTAssertEqual(event["raw"] as? Int, 0, "\(event)")
        XCTAssertEqual(event["status"] as? String, "changed")
    }

    /// The same pages, and pages of look-alike lines, moved by 0.2-0.45
    /// px, re-hinted, or drawn without sub-pixel positioning: noise (or
    /// unchanged where no pixel is over the threshold), or shifted by at
    /// most a pixel where whole lines moved; nothing counted, and no band
    /// said to have moved to a look-alike line; exit 0 but for the whole
    /// pixel moves.
    func testSubPixelRenderingsOfRepetitivePagesAreNoise() throws {
        var list: [(String, String, String)] = []
        for base in ["doc"] + Self.repetitive.map(\.0) {
            list += Self.moves.map { (base + "-" + $0.0, "default/\(base)-base.png", "default/\(base)-\($0.0).png") }
            list.append((base + "-hintnone", "default/\(base)-base.png", "hintnone/\(base)-base.png"))
            list.append((base + "-nosub", "default/\(base)-base.png", "nosub/\(base)-base.png"))
        }
        try pairs(list)
        let result = try collage(["--diff", "base", "shots", "--json", "--dry-run", "-o", "d.png",
                                  "--fail-on", "changed,resized,added,removed"])
        XCTAssertEqual(result.status, 0, result.summary)
        var noise = 0
        let compared = try uncounted(result, list)
        for (name, pair, status) in compared {
            let shifts = pair["shift"] as? [[String: Any]] ?? []
            if name.hasSuffix("-nosub") {
                XCTAssertTrue(["noise", "shifted"].contains(status), "\(name): \(pair)")
            } else {
                XCTAssertTrue(["noise", "unchanged"].contains(status), "\(name): \(pair)")
                XCTAssertEqual(shifts.count, 0, "\(name): no band moved: \(pair)")
            }
            for shift in shifts {
                XCTAssertLessThanOrEqual(abs(shift["dy"] as? Int ?? 99), 1, "\(name): \(pair)")
                XCTAssertEqual(shift["dx"] as? Int ?? 0, 0, "\(name): \(pair)")
            }
            noise += status == "noise" && !name.hasSuffix("-nosub") ? 1 : 0
        }
        // Pixels over the threshold differ on nearly every one moved or
        // re-hinted (a move straight down can leave none over it: unchanged).
        XCTAssertGreaterThanOrEqual(noise, list.count / 6 * 5 - 3, "\(compared.map { "\($0.name) \($0.status)" })")
        // The defaults: the moves and the re-hinting pass (noise does not fail).
        try pairs(list.filter { !$0.0.hasSuffix("-nosub") }, base: "moved-base", shots: "moved")
        let defaults = try collage(["--diff", "moved-base", "moved", "--dry-run", "-o", "d.png"])
        XCTAssertEqual(defaults.status, 0, defaults.summary)
    }
}
