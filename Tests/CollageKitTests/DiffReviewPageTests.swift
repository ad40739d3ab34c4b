import XCTest
import FileFacts
@testable import CollageKit
import Vips

/// The review page of `--diff --html`, built from pairs: a row per pair
/// that is not unchanged in the sheets' order, every pair of a group
/// listed with its group's size, names escaped and links encoded.
final class DiffReviewPageTests: XCTestCase {
    private func pair(_ name: String, _ status: PairStatus, pixels: Int = 0, group: Int? = nil) -> ComparedPair {
        var pair = ComparedPair(path: PathName("shots/" + name), baseline: PathName("base/" + name),
                                relative: PathName(name), status: status, pixels: pixels, percent: 0.5)
        pair.group = group
        pair.fails = PairStatus.failingByDefault.contains(status)
        pair.differencePicture = status == .unchanged ? nil : PathName("pics/" + name)
        return pair
    }

    func testRowsInTheSheetsOrderWithGroupsListedAll() {
        var shifted = pair("s.png", .shifted)
        shifted.shifts = [Shift(y: 40, height: 60, dy: 2, dx: 0)]
        let pairs = [pair("z.png", .changed, pixels: 5, group: 1), pair("n.png", .noise), shifted,
                     pair("a<&\">.png", .changed, pixels: 9, group: 2), pair("y.png", .changed, pixels: 5, group: 1),
                     pair("u.png", .unchanged)]
        let page = String(decoding: DiffReviewPage.page(pairs, unreadable: [JUnitReport.Unreadable(
            relative: PathName("bad.png"), message: "not an image")], link: { PageLinks.percentEncoded($0.bytes) }),
                          as: UTF8.self)
        let rows = page.components(separatedBy: "<tr id=\"pair-").dropFirst().map { $0.prefix(while: { $0 != "\n" }) }
        XCTAssertEqual(rows.map { String($0.split(separator: "\"")[2]) },
                       ["pair changed fails", "pair changed fails", "pair changed fails", "pair shifted fails", "pair noise"])
        XCTAssertTrue(page.contains("<span class=\"name\">a&lt;&amp;&quot;&gt;.png</span>"), page)
        XCTAssertTrue(page.contains("src=\"base%2Fa%3C%26%22%3E.png\""), page)
        XCTAssertEqual(page.components(separatedBy: "same change in 2 screenshots").count - 1, 2, "both of group 1")
        XCTAssertTrue(page.contains("rows 40-99 moved down 2 px"), page)
        XCTAssertTrue(page.contains("<h1>Visual diff: 4 of 7 screenshot(s) differ, 1 unreadable</h1>"), page)
        XCTAssertTrue(page.contains("<td class=\"message\" colspan=\"4\">not an image</td>"), page)
        XCTAssertTrue(page.contains("<summary>1 unchanged</summary>"), page)
        XCTAssertFalse(page.contains("http"), "nothing from the network")
        let first = page.range(of: "a&lt;&amp;")!.lowerBound, y = page.range(of: ">y.png<")!.lowerBound
        let z = page.range(of: ">z.png<")!.lowerBound
        XCTAssertTrue(first < y && y < z, "most changed first, ties by path")
    }

    /// A page whose content moved in 26 bands: every place a person reads
    /// it (the review page's row, the Markdown row, the JUnit message, the
    /// cell's caption) says the same one line; the events keep every band.
    func testShiftsSaidInOneLineEverywhere() throws {
        var pair = pair("long.png", .shifted)
        pair.shifts = (0..<26).map { Shift(y: 276 + 18 * $0, height: 16, dy: -(36 + 7 * $0), dx: 0) }
        let line = DiffText.shifts(pair.shifts)
        XCTAssertTrue(line.hasSuffix("and 23 more bands, up 57-211 px"), line)
        XCTAssertLessThan(line.count, 150)
        let page = String(decoding: DiffReviewPage.page([pair], unreadable: [], link: { $0.description }), as: UTF8.self)
        XCTAssertTrue(page.contains("<td class=\"moved\">\(DiffReviewPage.escape(line))</td>"), page)
        let markdown = String(decoding: MarkdownSummary.text([pair], unreadable: [], page: PathName("s.md")), as: UTF8.self)
        XCTAssertTrue(markdown.contains("| \(MarkdownSummary.escape(line)) |"), markdown)
        XCTAssertLessThan(markdown.split(separator: "\n").map(\.count).max() ?? 0, 400, "no cell of 2,000 characters")
        let junit = String(decoding: JUnitReport.xml([pair], unreadable: [], baseline: PathName("base")), as: UTF8.self)
        XCTAssertTrue(junit.contains(JUnitReport.escape(line) + "\"/>"), junit)
        var captions = Captions()
        captions.label = try Template("{path}", fields: Template.labelFields)
        let caption = captions.labelText(path: pair.path, header: ImageHeader(width: 1280, height: 8000, orientation: 1,
                                                                               format: "diff"), index: 1, pair: pair)
        XCTAssertEqual(caption, "long.png · " + line)
        XCTAssertEqual(pair.shifts.count, 26, "the pair (and its event) keeps every band")
    }
}
