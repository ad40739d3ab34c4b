import Foundation
import Glibc
import Vips
import XCTest

/// Sheets for print: `--page`, `--dpi`, `--margin`, the resolution every
/// image records, and `-o NAME.pdf`, read back with poppler-utils and
/// vipsheader.
final class PrintTests: CLITestCase {
    /// Two A4 pages: exactly A4 in points, every caption and title real
    /// text, every tile a JPEG at 300 dpi of its placed size; `written`
    /// names the PDF and the page, `document` says it is in place, and
    /// stdout without --json holds the PDF's path once.
    func testA4PDFHasItsPagesTextAndJPEGs() throws {
        try requirePoppler()
        printInputs()
        let arguments = ["--sheets", "--max", "4", "--page", "A4", "--label", "{name}",
                         "--title", "Contact sheet {sheet}", "in", "-o", "book.pdf"]
        let result = try collage(arguments + ["--json"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = jsonEvents(result)
        let written = events(all, "written")
        XCTAssertEqual(written.map { field($0, "output") }, ["book.pdf", "book.pdf"])
        XCTAssertEqual(written.map { $0["page"] as? Int }, [1, 2])
        XCTAssertEqual(written.map { "\($0["width"] ?? "")x\($0["height"] ?? "")" }, ["2480x3508", "2480x3508"])
        let document = events(all, "document")
        XCTAssertEqual(document.count, 1)
        XCTAssertEqual(document.first.flatMap { field($0, "output") }, "book.pdf")
        XCTAssertEqual(document.first?["pages"] as? Int, 2)

        let info = try pdfInfo("book.pdf")
        XCTAssertEqual(info.pages, 2)
        XCTAssertEqual(info.width, 595.28, accuracy: 0.01, "A4 is 595.28 pt wide")
        XCTAssertEqual(info.height, 841.89, accuracy: 0.01, "A4 is 841.89 pt high")

        let text = try poppler(["pdftotext", "book.pdf", "-"])
        for number in 1...6 { XCTAssertTrue(text.contains("p\(number).jpg"), "caption p\(number).jpg in:\n\(text)") }
        for sheet in 1...2 { XCTAssertTrue(text.contains("Contact sheet \(sheet)"), "title of sheet \(sheet) in:\n\(text)") }

        let images = try pdfImages("book.pdf")
        let placed = placedRects(all)
        XCTAssertEqual(images.count, 6, "one image per tile")
        XCTAssertEqual(images.map(\.page), [1, 1, 1, 1, 2, 2])
        for (image, rect) in zip(images, placed) {
            XCTAssertEqual(image.encoding, "jpeg")
            XCTAssertEqual("\(image.width)x\(image.height)", "\(rect.width)x\(rect.height)", "the tile at its placed size")
            XCTAssertEqual(image.ppi.0, 300)
            XCTAssertEqual(image.ppi.1, 300)
        }

        let plain = try collage(arguments)
        assertSuccess(plain, stdout: "book.pdf\n")
        assertNoLeftovers()
    }

    /// A page rendered by pdftoppm at the page's resolution is the sheet
    /// written as PNG: the same tiles in the same places.
    func testPDFPageRendersAsTheSameSheetAsPNG() throws {
        try requirePoppler()
        printInputs()
        let options = ["--sheets", "--max", "6", "--page", "A5:landscape", "--dpi", "150", "--gap", "10",
                       "--quality", "95", "--label", "{name}", "in"]
        let pdf = try collage(options + ["-o", "book.pdf", "--json"])
        XCTAssertEqual(pdf.status, 0, pdf.summary)
        XCTAssertEqual(try collage(options + ["-o", "sheet.png"]).status, 0)
        // A5 at 150 dpi is 1240x874 pixels (the page, 595.28x419.53 pt, a hair more): rendered on the same grid.
        _ = try poppler(["pdftoppm", "-scale-to-x", "1240", "-scale-to-y", "874", "-f", "1", "-l", "1", "-png",
                         "book.pdf", "page"])
        guard let rendered = decoded("page-1.png"), let sheet = decoded("sheet-0001.png") else { return }
        XCTAssertEqual("\(sheet.width)x\(sheet.height)", "1240x874")
        XCTAssertEqual("\(rendered.width)x\(rendered.height)", "1240x874")
        let whole = (x: 0, y: 0, width: 1240, height: 874)
        XCTAssertLessThan(meanDifference(rendered, sheet, in: whole), 4, "the page as a whole")
        // Each tile: JPEG at quality 95 and the viewer's smoothing of fine detail (sand, leaves) only.
        for rect in placedRects(jsonEvents(pdf)) {
            XCTAssertLessThan(meanDifference(rendered, sheet, in: rect), 8, "the tile at \(rect)")
        }
        // A tile is not the background: the comparison compares pictures.
        let first = placedRects(jsonEvents(pdf))[0]
        XCTAssertGreaterThan(meanDifference(rendered, PixelBuffer(width: sheet.width, height: sheet.height, fill: .white),
                                            in: first), 20)
    }

    /// Every written image records its resolution: 72 dpi without --page,
    /// --dpi with it; the canvas is the page at that resolution.
    func testResolutionIsRecordedInJPEGPNGAndTIFF() throws {
        printInputs()
        for suffix in ["jpg", "png", "tif"] {
            XCTAssertEqual(try collage(["in", "-o", "screen.\(suffix)"]).status, 0)
            XCTAssertEqual(try recordedDPI("screen.\(suffix)"), 72, accuracy: 0.01, suffix)
            XCTAssertEqual(try collage(["--page", "A5", "--dpi", "150", "in", "-o", "print.\(suffix)"]).status, 0)
            // PNG keeps whole pixels per metre: 5906 is 150.01 dpi.
            XCTAssertEqual(try recordedDPI("print.\(suffix)"), 150, accuracy: 0.05, suffix)
            guard let page = decoded("print.\(suffix)") else { continue }
            XCTAssertEqual("\(page.width)x\(page.height)", "874x1240", "A5 at 150 dpi")
        }
        XCTAssertEqual(try collage(["--page", "Letter:landscape", "in", "-o", "letter.png"]).status, 0)
        guard let letter = decoded("letter.png") else { return }
        XCTAssertEqual("\(letter.width)x\(letter.height)", "3300x2550", "Letter turned, at 300 dpi")
    }

    /// The margin is kept clear around the tiles, on top of the gap: the
    /// placed rectangles start at margin + gap and end as far from the far
    /// edges; without a gap, at the first whole pixel outside the margin.
    func testMarginsFromPlacedEvents() throws {
        printInputs(copies: 2)
        for (margin, pixels) in [("20mm", 236), ("0.5in", 150), ("36pt", 150), ("40px", 40)] {
            let result = try collage(["--page", "A4", "--margin", margin, "--gap", "12", "--max", "12",
                                      "in", "-o", "m.jpg", "--json"])
            XCTAssertEqual(result.status, 0, result.summary)
            let rects = placedRects(jsonEvents(result))
            XCTAssertEqual(rects.count, 12)
            XCTAssertEqual(rects.map(\.x).min(), pixels + 12, margin)
            XCTAssertEqual(rects.map(\.y).min(), pixels + 12, margin)
            // Cells are rounded: the far edges are within a pixel per cell of the margin.
            let right = rects.map { $0.x + $0.width }.max() ?? 0, bottom = rects.map { $0.y + $0.height }.max() ?? 0
            XCTAssertLessThanOrEqual(abs(2480 - pixels - 12 - right), 3, margin)
            XCTAssertLessThanOrEqual(abs(3508 - pixels - 12 - bottom), 3, margin)
        }
        // The default with a page: 10 mm, 118.11 pixels at 300 dpi; without a gap the
        // images start at the first whole pixel outside it, 119, and end before 2480 - 118.11.
        let result = try collage(["--page", "A4", "--max", "4", "in", "-o", "d.jpg", "--json"])
        let rects = placedRects(jsonEvents(result))
        XCTAssertEqual(rects.map(\.x).min(), 119)
        XCTAssertEqual(rects.map { $0.x + $0.width }.max(), 2361)
        // 210x297mm at 100 dpi, 827x1169 pixels: three columns inside the 39.37-pixel margin
        // (the last image once reached 789, past 827 - 39.37 = 787.63).
        let small = placedRects(jsonEvents(try collage(["--page", "210x297mm", "--dpi", "100", "--max", "6", "in",
                                                        "-o", "s.jpg", "--json"])))
        XCTAssertEqual(small.count, 6)
        for rect in small {
            XCTAssertGreaterThanOrEqual(Double(rect.x), 39.37, "\(rect)")
            XCTAssertGreaterThanOrEqual(Double(rect.y), 39.37, "\(rect)")
            XCTAssertLessThanOrEqual(Double(rect.x + rect.width), 827 - 39.37, "\(rect)")
            XCTAssertLessThanOrEqual(Double(rect.y + rect.height), 1169 - 39.37, "\(rect)")
        }
    }

    /// Bad values and combinations are usage errors before any image is
    /// read: nothing is written.
    func testUsageErrors() throws {
        printInputs()
        let cases: [([String], String)] = [
            (["--page", "B4"], "--page"), (["--page", "A4:sideways"], "--page"), (["--page", "210x297"], "--page"),
            (["--page", "A4", "--size", "800x600"], "--size"), (["--dpi", "0"], "--dpi"), (["--margin", "10"], "--margin"),
            (["--page", "A4", "--margin", "110mm"], "too small"),
            (["--page", "40x30mm", "--margin", "2mm", "--max", "60", "--label", "{name}"], "too small"),
            (["--sheets", "-o", "book-{n}.pdf"], "{n}"), (["--sheets", "--shard", "1/2", "-o", "b.pdf"], "--shard"),
            (["--diff", "in", "-o", "d.pdf"], "--diff"),
        ]
        for (arguments, mention) in cases {
            let output = arguments.contains("-o") ? [] : ["-o", "out.pdf"]
            let result = try collage(arguments + ["in"] + output)
            assertFailure(result, status: 64, mentions: [mention])
        }
        XCTAssertEqual(listingText().sorted(), ["in"], "nothing written")
    }

    /// `--skip-unchanged` keeps the PDF when nothing changed (one `unchanged`
    /// event for it, with every image); `--html` links each page and its photos.
    func testSkipUnchangedAndHTMLWithAPDF() throws {
        try requirePoppler()
        printInputs()
        let arguments = ["--sheets", "--max", "4", "--page", "A5", "--skip-unchanged", "--html", "index.html",
                         "in", "-o", "book.pdf", "--json"]
        XCTAssertEqual(try collage(arguments).status, 0)
        let made = contents("book.pdf") ?? []
        let html = String(decoding: contents("index.html") ?? [], as: UTF8.self)
        XCTAssertTrue(html.contains("href=\"book.pdf#page=1\""), html)
        XCTAssertTrue(html.contains("href=\"book.pdf#page=2\""), html)
        for number in 1...6 { XCTAssertTrue(html.contains("href=\"in/p\(number).jpg\""), html) }
        XCTAssertFalse(html.contains("<img"), "no picture of a PDF")

        let again = try collage(arguments)
        XCTAssertEqual(again.status, 0, again.summary)
        let unchanged = events(jsonEvents(again), "unchanged")
        XCTAssertEqual(unchanged.map { field($0, "output") }, ["book.pdf"])
        XCTAssertEqual((unchanged.first?["images"] as? [String])?.count, 6)
        XCTAssertEqual(events(jsonEvents(again), "written").count, 0)
        assertSameBytes(contents("book.pdf"), made, "left as it was")
        XCTAssertEqual(try pdfInfo("book.pdf").pages, 2)
    }
}
