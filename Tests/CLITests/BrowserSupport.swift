import Foundation
import Glibc
import XCTest

/// A page opened in a real browser (Debian's chromium, headless, from a
/// file), for the `--html` tests.
extension CLITestCase {
    /// The page's elements as the browser sees them: for each area, its
    /// resolved href, coords, and what a click at its centre hits; for each
    /// sheet, its src, natural and shown width. A copy of the page in the
    /// same folder (the same base address) gets a script that reports them.
    func browse(_ page: String, windowWidth: Int = 900) throws -> [String: Any] {
        var html = contents(page) ?? []
        html += b("""
            <script>
            window.addEventListener('load', () => {  /* the sheets loaded */
            const areas = [], sheets = [];
            for (const img of document.images) {
              sheets.push([img.src, img.naturalWidth, img.getBoundingClientRect().width, img.width]);
              const map = img.useMap ? document.querySelector('map[name="' + img.useMap.slice(1) + '"]') : null;
              for (const a of map ? map.areas : []) {
                const [x1, y1, x2, y2] = a.coords.split(',').map(Number);
                img.scrollIntoView();
                img.parentElement.scrollLeft = Math.max(0, x1 - 10);  /* the sheet's own scroll */
                const r = img.getBoundingClientRect();
                const hit = document.elementFromPoint(r.left + (x1 + x2) / 2, r.top + (y1 + y2) / 2);
                areas.push([a.href, a.coords, a.title, a.alt, hit ? hit.tagName : '', hit && hit.href ? hit.href : '',
                            a.pathname, a.search + a.hash]);
              }
            }
            document.body.textContent = JSON.stringify({areas, sheets});
            });
            </script>
            """)
        return try reportFromBrowser(html, beside: page, window: "\(windowWidth),700")
    }

    /// Opens `html` (a page ending in a script that replaces the body's
    /// text with a JSON report), saved beside `page` so that it has the
    /// same base address, in headless chromium; the report.
    func reportFromBrowser(_ html: [UInt8], beside page: String, window: String) throws -> [String: Any] {
        guard haveProgram("chromium") else { throw XCTSkip("chromium is not installed (scripts/test installs it)") }
        let copy = (page as NSString).deletingLastPathComponent + "/.probe-\(getpid()).html"
        write(html, to: copy)
        defer { unlink(copy) }
        let result = try runProcess([b("chromium"), b("--headless"), b("--no-sandbox"), b("--disable-gpu"),
                                     b("--user-data-dir=" + path(".chromium")), b("--window-size=" + window),
                                     b("--dump-dom"), b("file://" + copy)], timeout: 120)
        XCTAssertEqual(result.status, 0, result.summary)
        let text = result.stdoutText
        guard let start = text.range(of: "<body>"), let end = text.range(of: "</body>"),
              let json = try? JSONSerialization.jsonObject(with: Data(text[start.upperBound..<end.lowerBound].utf8))
                as? [String: Any] else {
            XCTFail("no report from the browser:\n\(text)")
            return [:]
        }
        return json
    }

    /// The file a `file://` address names, as bytes (percent-decoded).
    func fileBytes(_ url: String) -> [UInt8] {
        let bytes = Array(url.utf8.dropFirst("file://".count))
        var out: [UInt8] = [], index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                out.append(value)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    func inode(_ path: [UInt8]) -> UInt? {
        var info = stat()
        return withCPath(path) { stat($0, &info) } == 0 ? UInt(info.st_ino) : nil
    }

    /// Python with Playwright (PyPI), in the virtual environment scripts/test
    /// makes (.build/playwright); the test is skipped without it.
    func playwrightPython() throws -> String {
        let python = Package.root + "/.build/playwright/bin/python"
        guard access(python, X_OK) == 0 else {
            throw XCTSkip("Playwright is not installed (scripts/test installs it in .build/playwright)")
        }
        guard access("/usr/bin/chromium", X_OK) == 0 else { throw XCTSkip("chromium is not installed (scripts/test installs it)") }
        return python
    }

    /// Runs a Playwright script (Python) that drives Debian's chromium,
    /// headless, and prints one JSON object: that object. The script gets
    /// `browser` (launched), `page` (a new page whose every request is
    /// recorded in `requests`) and `emit(value)`; `arguments` are its
    /// sys.argv[1:].
    func playwright(_ body: String, arguments: [String] = []) throws -> [String: Any] {
        let python = try playwrightPython()
        let script = """
            import json, sys
            from playwright.sync_api import sync_playwright
            requests = []
            def emit(value):
                print(json.dumps(value))
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path='/usr/bin/chromium', headless=True,
                                            args=['--no-sandbox', '--disable-gpu'])
                page = browser.new_page()
                page.on('request', lambda request: requests.append(request.url))
                page.on('websocket', lambda socket: requests.append(socket.url))
            \(body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
                browser.close()
            """
        let result = try runProcess([b(python), b("-c"), b(script)] + arguments.map(b), directory: dir,
                                    environment: ["HOME": path("")], timeout: 180)
        XCTAssertEqual(result.status, 0, result.summary)
        guard let line = result.stdoutLines.last,
              let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            XCTFail("no report from the browser:\n\(result.summary)")
            return [:]
        }
        return json
    }
}
