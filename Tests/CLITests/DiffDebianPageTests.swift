import CollageTestSupport
import Foundation
import Glibc
import XCTest

/// `--diff` on documentation Debian ships, rendered by headless Chromium as
/// a screenshot job renders a site: python-requests-toolbelt-doc's Sphinx
/// pages (the Read the Docs theme: a dark sidebar holding the table of
/// contents, warning and note panels, code blocks on pale green, Previous
/// and Next buttons, the index's tables), read from /usr/share/doc as
/// installed, not written here. Each page is a copy that keeps the
/// package's stylesheets, fonts and scripts (a <base> naming the installed
/// folder) with one <style> injected, as a developer tries an edit:
/// a warning panel's fill and title bar recoloured, the text's colour, a
/// button's or the code blocks' fill a shade lighter, the sidebar's grey
/// are each `changed`; the same pages, and pages of look-alike lines (the
/// table of contents, the index's tables), with the content column moved
/// by 0.2-0.45 px or re-hinted are `noise` with no pixel counted; drawn
/// without sub-pixel glyph positioning (which reflows lines by whole
/// pixels) they are `shifted` by the few pixels the lines moved.
///
/// Every page is a section of tall pages, an iframe each, so Chromium
/// starts four times in all (DiffRenderedPageTests' three ways, the first
/// on two pages); the sections are cut out with `vips crop`.
final class DiffDebianPageTests: RenderedPagesTestCase {
    private static let package = "python-requests-toolbelt-doc"
    private static let docs = "/usr/share/doc/python-requests-toolbelt-doc/html/"
    private static let width = 960, height = 800

    /// The pages, each with CSS that brings what is compared into its
    /// section (the rest of the page hidden, as a test of one part does).
    private static let bases: [(String, String, String)] = [
        // SourceAddressAdapter: its signature on a blue-edged panel, a
        // paragraph, a warning panel, a code block, the footer's buttons.
        ("doc", "adapters.html", "#transport-adapters > :is(h1, p, ul, section:not(#sourceaddressadapter)),"
            + "#sourceaddressadapter > :is(.versionadded, p), #sourceaddressadapter dd > p:nth-of-type(-n+2)"
            + "{display:none}"),
        // The table of contents: nested lists of links, line after line.
        ("toc", "index.html", "#requests-toolbelt > p, #overview{display:none}"),
        // The index: tables of entries.
        ("index", "genindex.html", ""),
        // The module index: a table of modules.
        ("modules", "py-modindex.html", ""),
    ]

    /// Edits of the SourceAddressAdapter page, each a real change.
    private static let edits: [(String, String)] = [
        // The warning panel's fill #ffedcc and title bar #f0b37e, a shade deeper.
        ("panel", ".rst-content .warning{background:#ffe3c4}.rst-content .warning .admonition-title{background:#e9a266}"),
        ("text", ".rst-content p{color:#333}"),                           // the text #404040, a shade darker
        ("button", ".btn-neutral{background-color:#f9fbfb !important}"),  // Previous/Next #f3f6f6, a shade lighter
        ("code", ".highlight{background:#f4ffdc}"),                       // code blocks #eeffcc, a shade lighter
        ("sidebar", ".wy-nav-side{background:#3d3939}"),                  // the sidebar #343131
    ]

    /// Moves of a fraction of a pixel of the content column (a transform on
    /// it; one on body or html would move the fixed sidebar into the page's
    /// flow, which the theme's script then scrolls, and bare the frame's
    /// edge): noise.
    private static let moves: [(String, String)] = [
        ("x20", "translateX(0.2px)"), ("x35", "translateX(0.35px)"), ("y30", "translateY(0.3px)"),
        ("xy", "translate(0.25px,0.45px)"),
    ]

    /// The sections: name, page, CSS; the pages as shipped first.
    private static var sections: [(String, String, String)] {
        var all = bases.map { ($0.0 + "-base", $0.1, $0.2) }
        all += edits.map { ($0.0, bases[0].1, bases[0].2 + $0.1) }
        for (base, page, focus) in bases {
            all += moves.map { (base + "-" + $0.0, page, focus + ".wy-nav-content{transform:\($0.1)}") }
        }
        return all
    }

    override func renderPages() throws -> String {
        guard access(Self.docs + "adapters.html", R_OK) == 0 else {
            throw XCTSkip("\(Self.package) is not installed (scripts/test installs it)")
        }
        let folder = NSTemporaryDirectory() + "diff-debian-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        do {
            // Each section's page: the shipped HTML, its addresses read from
            // the installed folder, one <style> added after its stylesheets.
            for (index, (_, page, css)) in Self.sections.enumerated() {
                var html = try String(contentsOfFile: Self.docs + page, encoding: .utf8)
                let head = try XCTUnwrap(html.range(of: "<head>"), page)
                html.replaceSubrange(head, with: "<head><base href=\"file://\(Self.docs)\">")
                let end = try XCTUnwrap(html.range(of: "</head>"), page)
                html.replaceSubrange(end, with: "<style>\(css)</style></head>")
                try html.write(toFile: folder + "/v\(index).html", atomically: true, encoding: .utf8)
            }
            // Tall pages kept under 16,384 px high, an iframe a section.
            let perPage = 15_000 / Self.height
            var pages: [(file: String, names: [String])] = []
            for first in stride(from: 0, to: Self.sections.count, by: perPage) {
                let indices = first..<min(first + perPage, Self.sections.count)
                let frames = indices.map {
                    "<iframe src=\"v\($0).html\" style=\"top:\(($0 - first) * Self.height)px\"></iframe>"
                }.joined(separator: "\n")
                let html = """
                    <!doctype html><html><head><style>body{margin:0}
                    iframe{position:absolute;left:0;width:\(Self.width)px;height:\(Self.height)px;border:0}
                    </style></head><body>\(frames)</body></html>
                    """
                try html.write(toFile: folder + "/page\(pages.count).html", atomically: true, encoding: .utf8)
                pages.append(("page\(pages.count).html", indices.map { Self.sections[$0].0 }))
            }
            try renderSections(pages, in: folder, width: Self.width, height: Self.height,
                               everyWay: { $0.hasSuffix("-base") }, flags: ["--virtual-time-budget=10000"])
        } catch {
            _ = try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        return folder
    }

    /// The warning panel, the text, the buttons, the code block, the
    /// sidebar: each `changed`, its area counted, though few or no pixels
    /// differ by more than the threshold one by one.
    func testEditsOfShippedPagesAreChanges() throws {
        let folder = try rendered()
        try copyPairs(Self.edits.map { ($0.0, "default/doc-base.png", "default/\($0.0).png") }, from: folder)
        let result = try collage(["--diff", "base", "shots", "--json", "--dry-run", "-o", "d.png"])
        XCTAssertEqual(result.status, 1, result.summary)
        let found = comparedByName(result)
        // The least each change covers: the panel's fill and title bar, the
        // paragraphs' glyphs, two buttons, the code block, the sidebar.
        let least = ["panel": 10_000, "text": 3_000, "button": 2_000, "code": 10_000, "sidebar": 100_000]
        for (name, _) in Self.edits {
            let pair = try XCTUnwrap(found[name], name)
            XCTAssertEqual(pair["status"] as? String, "changed", "\(name): \(pair)")
            XCTAssertGreaterThanOrEqual(pair["pixels"] as? Int ?? 0, least[name] ?? 1, "\(name): \(pair)")
            XCTAssertNil(pair["shift"], "\(name): nothing moved: \(pair)")
        }
        // The buttons a shade lighter alone fail a run.
        let button = try collage(["--diff", "base/button.png", "shots/button.png", "--dry-run", "-o", "b.png"])
        XCTAssertEqual(button.status, 1, button.summary)
    }

    /// The shipped pages, and their tables and table of contents, with the
    /// content column moved by 0.2-0.45 px or re-hinted: nothing counted,
    /// `noise` (or `unchanged`), no band said to have moved (to a look-alike
    /// line or otherwise); they pass by default.
    func testSubPixelMovesAndRehintingOfShippedPagesAreNoise() throws {
        let folder = try rendered()
        var list: [(String, String, String)] = []
        for (base, _, _) in Self.bases {
            list += Self.moves.map { (base + "-" + $0.0, "default/\(base)-base.png", "default/\(base)-\($0.0).png") }
            list.append((base + "-hintnone", "default/\(base)-base.png", "hintnone/\(base)-base.png"))
        }
        try copyPairs(list, from: folder)
        let result = try collage(["--diff", "base", "shots", "--json", "--dry-run", "-o", "d.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        var noise = 0
        let compared = try uncounted(result, list)
        for (name, pair, status) in compared {
            XCTAssertTrue(["noise", "unchanged"].contains(status), "\(name): \(pair)")
            XCTAssertNil(pair["shift"], "\(name): no band moved: \(pair)")
            noise += status == "noise" ? 1 : 0
        }
        // Most differ by pixels over the threshold, each explained (a move
        // straight down can be drawn the same, or leave none over it).
        XCTAssertGreaterThanOrEqual(noise, list.count * 3 / 4, "\(compared.map { "\($0.name) \($0.status)" })")
    }

    /// Drawn without sub-pixel glyph positioning, Chromium rounds the
    /// fonts' metrics too: lines come out whole pixels higher, more the
    /// further down (up to 6 px on the table of contents). Those are moves:
    /// `shifted`, each band by the few pixels its lines moved, never to a
    /// look-alike line 18 px or more away, nothing else counted on the pages
    /// of repeated lines; on the SourceAddressAdapter page the edges of the
    /// boxes whose height changed by a pixel (the search field, the warning
    /// panel, the sidebar's open section) are a change (`changed`, with its
    /// shifts), a sliver of the page.
    func testShippedPagesDrawnWithoutSubPixelPositioningAreShifted() throws {
        let folder = try rendered()
        try copyPairs(Self.bases.map { ($0.0, "default/\($0.0)-base.png", "nosub/\($0.0)-base.png") }, from: folder)
        let result = try collage(["--diff", "base", "shots", "--json", "--dry-run", "-o", "d.png"])
        XCTAssertEqual(result.status, 1, result.summary)
        let found = comparedByName(result)
        for (name, _, _) in Self.bases {
            let pair = try XCTUnwrap(found[name], name)
            let shifts = pair["shift"] as? [[String: Any]] ?? []
            XCTAssertFalse(shifts.isEmpty, "\(name): lines moved: \(pair)")
            for shift in shifts {
                XCTAssertLessThanOrEqual(abs(shift["dy"] as? Int ?? 99), 8, "\(name): \(pair)")
                XCTAssertEqual(shift["dx"] as? Int ?? 0, 0, "\(name): \(pair)")
            }
            if name == "doc" {
                XCTAssertTrue(["shifted", "changed"].contains(pair["status"] as? String ?? ""), "\(name): \(pair)")
                XCTAssertLessThan(pair["percent"] as? Double ?? 100, 1, "\(name): \(pair)")
            } else {
                XCTAssertEqual(pair["status"] as? String, "shifted", "\(name): \(pair)")
                XCTAssertEqual(pair["pixels"] as? Int, 0, "\(name): \(pair)")
            }
        }
    }
}
