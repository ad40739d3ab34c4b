import XCTest
@testable import Vips

/// What happens at the end of the frame after aligning: a band that moved
/// down pushes its last rows past the bottom, one that moved up brings
/// rows into view there, and a taller picture has rows the other has not.
/// Those rows lie outside the common part: not a change. A real change
/// inside the common part is still counted, alone.
final class DiffFrameEdgeTests: XCTestCase {
    /// Row `r` of a document: a bar from the left whose length and grey
    /// differ from row to row (every row its own, none flat), over white.
    private func documentRow(_ r: Int, _ x: Int) -> RGB {
        let grey = UInt8(r / 180 * 50)
        return x < 20 + r * 7 % 180 ? RGB(red: grey, green: grey, blue: grey) : .white
    }

    /// A 240 x `height` screenshot of the document below a flat header
    /// `header` rows high, with a `block` of colour (30x6 at document row
    /// 100, x 150) when given.
    private func screen(header: Int = 20, height: Int = 200, block: RGB? = nil) throws -> FullPicture {
        try FullPicture(PixelBuffer(width: 240, height: height) { x, y in
            if y < header { return RGB(red: 200, green: 210, blue: 230) }
            let r = y - header
            if let block, (100..<106).contains(r), (150..<180).contains(x) { return block }
            return self.documentRow(r, x)
        })
    }

    private func compare(_ a: FullPicture, _ b: FullPicture) throws -> Difference {
        try Difference.compare(a, b, options: DifferenceOptions())
    }

    /// The header grew 2 rows: the document moved down 2, and its last 2
    /// rows went past the bottom of the frame. They moved, they did not
    /// change: one band, dy 2 exactly, nothing counted.
    func testRowsPushedPastTheBottomAreNotAChange() throws {
        let difference = try compare(screen(), screen(header: 22))
        XCTAssertEqual(difference.pixels, 0, "the 2 rows that left the frame are not a change")
        XCTAssertEqual(difference.noise, 0)
        XCTAssertEqual(difference.shifts, [Shift(y: 20, height: 178, dy: 2, dx: 0)])
    }

    /// The header shrank 2 rows: the document moved up 2, and 2 rows of it
    /// the baseline never showed came into view at the bottom: not
    /// compared (there is nothing to compare them with), not a change.
    func testRowsComingIntoViewAtTheBottomAreNotAChange() throws {
        let difference = try compare(screen(header: 22), screen())
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertEqual(difference.shifts, [Shift(y: 22, height: 178, dy: -2, dx: 0)])
    }

    /// A block recoloured while the document moved down 3 and its end went
    /// past the bottom: the block's 180 pixels are counted, where they are
    /// now, and nothing of the move.
    func testARealChangeAboveTheCutIsCountedAlone() throws {
        let difference = try compare(screen(block: RGB(red: 220, green: 0, blue: 0)),
                                     screen(header: 23, block: RGB(red: 0, green: 0, blue: 220)))
        XCTAssertEqual(difference.pixels, 30 * 6)
        XCTAssertEqual(difference.changeBox, PixelRect(x: 150, y: 123, width: 30, height: 6))
        XCTAssertEqual(difference.shifts.map(\.dy), [3])
    }

    /// The same page rendered 48 rows taller (a taller window): the first
    /// 200 rows are the same, the 48 more are the rest of the document.
    /// Compared on the common part: nothing changed, nothing moved; and
    /// the other way round (the current 48 rows shorter) too.
    func testATallerPictureIsComparedOnTheCommonPart() throws {
        let taller = try compare(screen(), screen(height: 248))
        XCTAssertFalse(taller.sameSize)
        XCTAssertEqual(taller.pixels, 0, "the 48 rows below the baseline's end are not compared")
        XCTAssertEqual(taller.shifts, [])
        XCTAssertEqual(taller.raw, 240 * 48, "pixelmatch's count holds the rest")
        let shorter = try compare(screen(height: 248), screen())
        XCTAssertEqual(shorter.pixels, 0)
        XCTAssertEqual(shorter.shifts, [])
    }

    /// A change inside the common part of a taller picture is counted.
    func testAChangeInTheCommonPartOfATallerPictureIsCounted() throws {
        let difference = try compare(screen(block: RGB(red: 220, green: 0, blue: 0)),
                                     screen(height: 248, block: RGB(red: 0, green: 0, blue: 220)))
        XCTAssertEqual(difference.pixels, 30 * 6)
        XCTAssertEqual(difference.changeBox, PixelRect(x: 150, y: 120, width: 30, height: 6))
    }
}
