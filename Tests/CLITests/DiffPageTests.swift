import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// `--diff --html`: the review page. Its structure parsed (Python's HTML
/// parser), and the page driven in a real browser (headless chromium, from
/// a file): the before/after switch shows the other picture, and every
/// picture and link resolves to the file it names.
final class DiffPageTests: CLITestCase {
    private func shot(_ dots: [(Int, Int)] = [], width: Int = 64, height: Int = 48) -> [UInt8] {
        let pixels = PixelBuffer(width: width, height: height) { x, y in
            dots.contains(where: { $0 == (x, y) }) ? .black : RGB(red: 230, green: 235, blue: 240)
        }
        return try! Encoder.encode(pixels, suffix: ".png", orientation: nil).bytes
    }

    /// Awkward names: a space, `#`, `%`, `&`, `<` and a byte that is not UTF-8.
    private let changed: [[UInt8]] = [b("a b.png"), b("hash#1.png"), b("pct%41&<x>.png"), b("caf") + [0xE9] + b(".png")]

    private func writePairs() {
        for folder in ["base", "shots", "review"] { makeFolder(folder) }
        for (index, name) in changed.enumerated() {
            write(shot(), to: b("base/") + name)
            write(shot([(10 + index, 10)]), to: b("shots/") + name)
        }
        write(shot(), to: "base/same.png"); write(shot(), to: "shots/same.png")
        write(shot(), to: "base/gone.png")
        write(shot([(5, 5)]), to: "shots/new.png")
        write(b("not an image"), to: "base/bad.png"); write(shot(), to: "shots/bad.png")
    }

    /// The rows, cells and pictures, as an HTML parser reads them.
    func testPageStructure() throws {
        guard haveProgram("python3") else { throw XCTSkip("python3 is not installed") }
        writePairs()
        let result = try collage(["--diff", "base", "--json", "shots", "-o", "d.png", "--html", "review/index.html"])
        XCTAssertEqual(result.status, 65, result.summary)  // bad.png cannot be read
        XCTAssertTrue(exists("review/index.html"))
        // Without --diff-images, the pictures go beside the page.
        XCTAssertEqual(listingText("review/index.files").sorted(),
                       ["a b.png", "caf\u{FFFD}.png", "gone.png", "hash#1.png", "new.png", "pct%41&<x>.png"].sorted())
        let script = """
            import sys, json
            from html.parser import HTMLParser
            class P(HTMLParser):
                def __init__(s):
                    super().__init__(); s.rows = []; s.row = None; s.cell = None; s.imgs = []; s.ext = []; s.th = []
                    s.counts = []; s.incount = False; s.scripts = 0; s.inth = False
                def handle_starttag(s, tag, a):
                    a = dict(a)
                    if tag == 'tr' and 'pair' in (a.get('class') or ''): s.row = {'status': a.get('data-status'), 'cells': []}
                    if tag == 'td' and s.row is not None: s.cell = ''
                    if tag == 'th': s.inth = True; s.th.append('')
                    if tag == 'img':
                        s.imgs.append([a.get('class'), a.get('src'), a.get('alt'), 'hidden' in a])
                        if s.row is not None: s.row.setdefault('imgs', []).append(a.get('class'))
                    for key in ('src', 'href'):
                        v = a.get(key) or ''
                        if (':' in v.split('/')[0] or v.startswith('//')) and not v.startswith('data:'): s.ext.append(v)
                    if tag == 'link' or (tag == 'script' and 'src' in a): s.ext.append(tag)
                    if tag == 'script': s.scripts += 1
                    if tag == 'span' and 'count' in (a.get('class') or '').split(): s.incount = True; s.counts.append('')
                def handle_endtag(s, tag):
                    if tag == 'td' and s.row is not None: s.row['cells'].append(s.cell.strip()); s.cell = None
                    if tag == 'tr' and s.row is not None: s.rows.append(s.row); s.row = None
                    if tag == 'th': s.inth = False
                    if tag == 'span': s.incount = False
                def handle_data(s, d):
                    if s.cell is not None: s.cell += d
                    if s.inth: s.th[-1] += d
                    if s.incount: s.counts[-1] += d
            p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
            print(json.dumps({'rows': p.rows, 'imgs': p.imgs, 'external': p.ext, 'th': p.th, 'counts': p.counts,
                              'scripts': p.scripts}))
            """
        let parsed = try runProcess([b("python3"), b("-c"), b(script), b(path("review/index.html"))])
        XCTAssertEqual(parsed.status, 0, parsed.summary)
        let page = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(parsed.stdoutText.utf8)) as? [String: Any])
        XCTAssertEqual(page["external"] as? [String], [], "nothing from the network, no external script or style")
        XCTAssertEqual(page["scripts"] as? Int, 1, "one inline script")
        XCTAssertEqual(page["th"] as? [String], ["screenshot", "status", "pixels", "moved", "group", "baseline / current",
                                                 "difference", "decision"])
        XCTAssertEqual(page["counts"] as? [String], ["4 changed", "1 added", "1 removed", "1 unchanged", "1 unreadable"])
        let rows = try XCTUnwrap(page["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["status"] as? String },
                       ["changed", "changed", "changed", "changed", "added", "removed", "unreadable", "unchanged"])
        let names = rows.map { (($0["cells"] as? [String])?.first ?? "").components(separatedBy: "\n").first ?? "" }
        XCTAssertEqual(names.map { $0.hasPrefix("a b.png") }, [true] + [Bool](repeating: false, count: 7))
        XCTAssertTrue(names.contains { $0.hasPrefix("pct%41&<x>.png") }, "\(names): the name as text, unescaped by the parser")
        for row in rows.prefix(4) {
            let cells = row["cells"] as? [String] ?? []
            XCTAssertEqual(cells.count, 8, "\(row)")
            XCTAssertEqual(cells[7], "approve as an alternative", "\(row)")
            XCTAssertEqual(cells[1], "changed")
            XCTAssertEqual(cells[2], "1 (0.0326%)raw 1", "the real change, and what pixelmatch counts")
            XCTAssertEqual(row["imgs"] as? [String], ["baseline", "current", "difference"])
        }
        XCTAssertEqual(rows[4]["imgs"] as? [String], ["current", "difference"], "added: the current side only")
        XCTAssertEqual(rows[5]["imgs"] as? [String], ["baseline", "difference"], "removed: the baseline only")
        let imgs = try XCTUnwrap(page["imgs"] as? [[Any]])
        XCTAssertEqual(imgs.filter { ($0[0] as? String) == "current" && ($0[3] as? Bool) == true }.count, 4,
                       "the current picture is hidden until switched to, where there is a baseline")
        XCTAssertEqual(events(jsonEvents(result), "written").count, 1, "the sheet is still drawn")
    }

    /// In a real browser: the switch shows the other picture (by its
    /// button, by a click on the picture, all at once), and every picture
    /// and link of the page resolves to an existing file.
    func testSwitchAndLinksInABrowser() throws {
        writePairs()
        let result = try collage(["--diff", "base", "shots", "-o", "d.png", "--html", "review/index.html",
                                  "--diff-images", "pics"])
        XCTAssertEqual(result.status, 65, result.summary)
        XCTAssertFalse(exists("review/index.files"), "--diff-images' pictures are the page's")
        // Loaded before the load event (the page loads them lazily), so
        // that the report is made, synchronously, when the page has loaded.
        let page = String(decoding: contents("review/index.html") ?? [], as: UTF8.self)
        XCTAssertTrue(page.contains(" loading=\"lazy\""))
        var html = b(page.replacingOccurrences(of: " loading=\"lazy\"", with: ""))
        html += b("""
            <script>
            window.addEventListener('load', () => {
              const figures = [...document.querySelectorAll('figure.flip')];
              const shown = () => figures.map(f => [...f.querySelectorAll('img')]
                .filter(i => getComputedStyle(i).display !== 'none').map(i => i.className + ' ' + i.src));
              const report = {before: shown()};
              figures[0].querySelector('button').click();
              report.button = shown();
              figures[0].querySelector('img.current').click();
              report.picture = shown();
              document.getElementById('flip-all').click();
              report.all = shown();
              report.labels = figures.map(f => f.querySelector('button').textContent);
              report.images = [...document.images].map(i => [i.src, i.naturalWidth]);
              report.links = [...document.links].filter(a => a.protocol !== 'data:').map(a => [a.href, a.pathname, a.search + a.hash]);
              report.downloads = [...document.links].filter(a => a.protocol === 'data:').map(a => a.download);
              document.body.textContent = JSON.stringify(report);
            });
            </script>
            """)
        let report = try reportFromBrowser(html, beside: path("review/index.html"), window: "1200,4000")
        let before = try XCTUnwrap(report["before"] as? [[String]])
        XCTAssertEqual(before.count, 6, "a before/after picture per differing pair")
        XCTAssertEqual(before.map { $0.count }, [1, 1, 1, 1, 1, 1], "one picture shown at a time")
        XCTAssertEqual(before.map { $0.first?.components(separatedBy: " ").first }, 
                       ["baseline", "baseline", "baseline", "baseline", "current", "baseline"])
        let button = try XCTUnwrap(report["button"] as? [[String]])
        XCTAssertTrue(button[0].first?.hasPrefix("current file://" + path("shots/a%20b.png")) == true, "\(button[0])")
        XCTAssertEqual(Array(button.dropFirst()), Array(before.dropFirst()), "only its own row switched")
        XCTAssertEqual(report["picture"] as? [[String]], before, "a click on the picture switches it back")
        let all = try XCTUnwrap(report["all"] as? [[String]])
        XCTAssertEqual(all.map { $0.first?.components(separatedBy: " ").first },
                       ["current", "current", "current", "current", "current", "baseline"],
                       "every row with both sides switched; added and removed keep the side they have")
        XCTAssertEqual((report["labels"] as? [String])?.first, "current")
        let images = try XCTUnwrap(report["images"] as? [[Any]])
        XCTAssertEqual(images.count, 4 * 3 + 2 + 2)
        for image in images {
            let url = image[0] as? String ?? ""
            XCTAssertNotNil(inode(fileBytes(url)), "\(url) resolves to a file")
            XCTAssertEqual(image[1] as? Int, 64, "\(url) loaded")
        }
        XCTAssertEqual(report["downloads"] as? [String], ["decisions.json"], "the decisions, the one data: link")
        let links = try XCTUnwrap(report["links"] as? [[Any]])
        XCTAssertGreaterThanOrEqual(links.count, images.count)
        for link in links {
            XCTAssertEqual(link[2] as? String, "", "\(link[0]): no query or fragment cut from a name")
            XCTAssertNotNil(inode(fileBytes("file://" + (link[1] as? String ?? ""))), "\(link[0]) resolves to a file")
        }
        let targets = Set(links.map { String(decoding: fileBytes("file://" + ($0[1] as? String ?? "")), as: UTF8.self) })
        for name in changed {
            for root in ["base/", "shots/", "pics/"] {
                XCTAssertTrue(targets.contains(String(decoding: path(b(root) + name), as: UTF8.self)),
                              "\(root)\(String(decoding: name, as: UTF8.self)) is linked")
            }
        }
    }

    /// Nothing fails: the page says so (status 0, no sheet); --dry-run
    /// writes it too; a folder that cannot take it is one line before any
    /// pair is read; --approve writes no page.
    func testPageWhenNothingFailsAndItsFailures() throws {
        for folder in ["base", "shots"] { makeFolder(folder) }
        write(shot(), to: "base/a.png"); write(shot(), to: "shots/a.png")
        let same = try collage(["--diff", "base", "shots", "-o", "d.png", "--html", "index.html"])
        XCTAssertEqual(same.status, 0, same.summary)
        let page = String(decoding: try XCTUnwrap(contents("index.html")), as: UTF8.self)
        XCTAssertTrue(page.contains("<h1>Visual diff: nothing fails (1 screenshot(s) compared)</h1>"), page)
        XCTAssertFalse(exists("d.png"))
        write(shot([(1, 1)]), to: "shots/a.png")
        let dry = try collage(["--diff", "base", "--dry-run", "shots", "-o", "d.png", "--html", "dry.html"])
        XCTAssertEqual(dry.status, 1, dry.summary)
        XCTAssertTrue(String(decoding: try XCTUnwrap(contents("dry.html")), as: UTF8.self).contains("1 of 1 screenshot(s) differ"))
        XCTAssertTrue(exists("dry.files/a.png"))
        XCTAssertFalse(exists("d.png"), "a dry run draws no sheet")
        assertFailure(try collage(["--diff", "base", "shots", "-o", "d.png", "--html", "nowhere/index.html"]),
                      status: 73, mentions: ["nowhere"])
        XCTAssertFalse(exists("d.png"), "checked before any pair was compared")
        let approve = try collage(["--diff", "base", "shots", "-o", "d.png", "--html", "approved.html", "--approve"])
        XCTAssertEqual(approve.status, 0, approve.summary)
        XCTAssertFalse(exists("approved.html"))
        XCTAssertFalse(exists("approved.files"))
    }
}
