import XCTest
import FileFacts
import Vips
@testable import CollageKit

/// Readable cells: a pair's region with its context, the panels laid out
/// for it, and the caption saying how a band moved.
final class DiffCellTests: XCTestCase {
    private func pair(_ status: PairStatus, region: PixelRect?, page: (Int, Int) = (1280, 8000),
                      shifts: [Shift] = []) -> ComparedPair {
        var pair = ComparedPair(path: PathName("shots/a.png"), baseline: PathName("base/a.png"),
                                relative: PathName("a.png"), status: status, pixels: 1)
        pair.shape = ImageShape(width: page.0, height: page.1)
        (pair.region, pair.shifts) = (region, shifts)
        return pair
    }

    /// A 30x10 change on a tall page: the cell is the change with 16 to 64
    /// pixels of context (at least 48 each way), three times, and the page
    /// small beside it, not the page.
    func testCellIsTheRegionWithContextNotThePage() {
        let changed = pair(.changed, region: PixelRect(x: 600, y: 5000, width: 30, height: 10))
        XCTAssertEqual(DiffCell.crop(changed), PixelRect(x: 584, y: 4981, width: 62, height: 48))
        let (widths, height) = DiffCell.panels(changed)
        XCTAssertEqual(height, 48, "at 1:1, not 8000 rows")
        XCTAssertEqual(widths, [62, 62, 62, 20], "the tall page beside it, at least a third as wide")
        XCTAssertEqual(DiffCell.shape(changed), ImageShape(width: 206 + 3 * 2, height: 48))
        // At the page's edge the context stays inside the page.
        XCTAssertEqual(DiffCell.crop(pair(.changed, region: PixelRect(x: 0, y: 0, width: 400, height: 200))),
                       PixelRect(x: 0, y: 0, width: 528, height: 328))
        // Without a region (added, removed, resized): the whole pictures, a third each.
        XCTAssertEqual(DiffCell.panels(pair(.added, region: nil)).widths, [1280, 1280, 1280])
    }

    /// The baseline panel links to the baseline's file: the split is where
    /// the first panel ends.
    func testSplitFollowsThePanels() {
        let changed = pair(.changed, region: PixelRect(x: 600, y: 5000, width: 30, height: 10))
        let (baseline, current) = DiffCell.split(TileRect(x: 100, y: 10, width: 332, height: 96), changed)
        XCTAssertEqual(baseline, TileRect(x: 100, y: 10, width: 97, height: 96), "62 of 206, in 332 less 3 gaps of 3")
        XCTAssertEqual(current.x, 100 + 97 + 3)
        XCTAssertEqual(current.x + current.width, 432)
    }

    /// A shifted pair's caption says which band moved and by how much.
    func testCaptionSaysHowTheBandMoved() throws {
        var captions = Captions()
        captions.label = try Template("{path} · {status}", fields: Template.labelFields)
        let shifted = pair(.shifted, region: nil, shifts: [Shift(y: 80, height: 400, dy: 2, dx: 0),
                                                           Shift(y: 600, height: 10, dy: 0, dx: -3)])
        let header = ImageHeader(width: 1280, height: 8000, orientation: 1, format: "diff")
        XCTAssertEqual(captions.labelText(path: shifted.path, header: header, index: 1, pair: shifted),
                       "a.png · shifted · rows 80-479 moved down 2 px; rows 600-609 moved left 3 px")
        XCTAssertEqual(DiffText.shifts([Shift(y: 600, height: 10, dy: 0, dx: -3)]), "rows 600-609 moved left 3 px")
    }

    /// Shifts said in a line: bands next to each other that moved the same
    /// way by amounts a pixel or two apart are one; the three tallest are
    /// named in the page's order, the rest summed. The 26 bands of a page
    /// whose content moved up 36 to 215 px, a band every 18 rows, each
    /// moved a pixel or so more than the last, and a few far apart.
    func testShiftsSaidInALine() {
        XCTAssertEqual(DiffText.shifts([Shift(y: 8, height: 1000, dy: 2, dx: 0), Shift(y: 1010, height: 989, dy: 2, dx: 0)]),
                       "rows 8-1998 moved down 2 px", "the same move, one band")
        XCTAssertEqual(DiffText.shifts([Shift(y: 276, height: 17, dy: -38, dx: 0), Shift(y: 294, height: 31, dy: -39, dx: 0),
                                        Shift(y: 330, height: 10, dy: -40, dx: 0)]),
                       "rows 276-339 moved up 38-40 px", "a pixel or two apart, one band")
        XCTAssertEqual(DiffText.shifts([Shift(y: 0, height: 10, dy: -1, dx: 0), Shift(y: 10, height: 10, dy: 1, dx: 0)]),
                       "rows 0-9 moved up 1 px; rows 10-19 moved down 1 px", "up and down are not merged")
        var bands: [Shift] = []
        var y = 276
        for move in [38, 39, 45, 46, 52, 60, 61, 70, 80, 81, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200,
                     205, 215, 36, 120] {
            bands.append(Shift(y: y, height: move == 90 ? 400 : 16, dy: -move, dx: 0))
            y += 18
        }
        let line = DiffText.shifts(bands)
        XCTAssertEqual(line, "rows 276-309 moved up 38-39 px; rows 312-345 moved up 45-46 px; rows 456-855 moved up 90 px; "
                       + "and 19 more bands, up 36-215 px")
        XCTAssertLessThan(line.count, 160)
        XCTAssertEqual(DiffText.shifts([Shift(y: 0, height: 5, dy: 3, dx: 0), Shift(y: 10, height: 5, dy: 0, dx: 4),
                                        Shift(y: 20, height: 6, dy: 9, dx: 0), Shift(y: 30, height: 7, dy: -9, dx: 0),
                                        Shift(y: 40, height: 1, dy: 0, dx: -2)]),
                       "rows 0-4 moved down 3 px; rows 20-25 moved down 9 px; rows 30-36 moved up 9 px; "
                       + "and 2 more bands, left 2 px, right 4 px")
    }
}
