import XCTest
import Vips
@testable import CollageKit

/// The statuses of the second step, from pixels made here: noise, shifted,
/// changed with a shift, resized; and the sheets' order.
final class PairStatusTests: XCTestCase {
    /// A 120x160 page: a grey header 20 rows high (grown by `grow`), black
    /// bars with soft (anti-aliased) ends at `edge` + a fraction, and a
    /// `block` of colour at (40, 120) 20x5 below them.
    private func page(grow: Int = 0, edge: Double = 30.3, block: RGB = .white, height: Int = 160) throws -> FullPicture {
        try FullPicture(PixelBuffer(width: 120, height: height) { x, y in
            if y < 20 + grow { return RGB(red: 120, green: 120, blue: 120) }
            let row = y - grow
            if (120..<125).contains(row), (40..<60).contains(x) { return block }
            guard (30..<100).contains(row), row % 12 < 4 else { return .white }
            let width = edge + Double(row % 24)  // bars of different lengths: rows that are unique
            let cover = min(1, max(0, width - Double(x)))
            let value = UInt8((255 * (1 - cover)).rounded())
            return RGB(red: value, green: value, blue: value)
        })
    }

    private func status(_ a: FullPicture, _ b: FullPicture, tolerance: Tolerance = .pixels(0)) throws
        -> (PairStatus, Difference) {
        let difference = try Difference.compare(a, b, options: DifferenceOptions())
        return (PairComparison.status(of: difference, tolerance: tolerance), difference)
    }

    func testSameBytesAreUnchanged() throws {
        XCTAssertEqual(try status(page(), page()).0, .unchanged)
    }

    func testSubPixelEdgesAreNoise() throws {
        let (found, difference) = try status(page(edge: 30.3), page(edge: 30.6))
        XCTAssertEqual(found, .noise)
        XCTAssertGreaterThan(difference.noise, 0)
        XCTAssertEqual(difference.pixels, 0)
    }

    func testTwoPixelShiftBelowABandIsShifted() throws {
        let (found, difference) = try status(page(), page(grow: 2))
        XCTAssertEqual(found, .shifted)
        XCTAssertEqual(difference.shifts.map(\.dy), [2])
        XCTAssertEqual(difference.shifts.first?.y, 20)
    }

    func testRecolourBelowAShiftIsChangedWithItsOwnCount() throws {
        let red = RGB(red: 230, green: 20, blue: 20), blue = RGB(red: 20, green: 20, blue: 230)
        let (found, difference) = try status(page(block: red), page(grow: 2, block: blue))
        XCTAssertEqual(found, .changed)
        XCTAssertEqual(difference.pixels, 100, "the 20x5 block, nothing of the shift")
        XCTAssertEqual(difference.shifts.map(\.dy), [2])
        XCTAssertEqual(try status(page(block: red), page(grow: 2, block: blue), tolerance: .pixels(100)).0, .shifted,
                       "within the tolerance the shift is what is left")
    }

    func testOtherSizeIsResized() throws {
        let (found, difference) = try status(page(), page(height: 170))
        XCTAssertEqual(found, .resized)
        XCTAssertFalse(difference.sameSize)
    }

    /// A screenshot of a document whose every row is its own (a bar of
    /// another length and grey), to its last row, below a flat header
    /// `header` rows high.
    private func screen(header: Int = 20, height: Int = 160) throws -> FullPicture {
        try FullPicture(PixelBuffer(width: 120, height: height) { x, y in
            if y < header { return RGB(red: 200, green: 210, blue: 230) }
            let grey = UInt8((y - header) / 90 * 60)
            return x < 10 + (y - header) * 7 % 90 ? RGB(red: grey, green: grey, blue: grey) : .white
        })
    }

    /// The header grew 3 rows and pushed the document's last 3 rows past
    /// the bottom: only a band moved, so `shifted`, dy 3.
    func testAPageWhoseEndWasPushedPastTheBottomIsShifted() throws {
        let (found, difference) = try status(screen(), screen(header: 23))
        XCTAssertEqual(found, .shifted)
        XCTAssertEqual(difference.shifts.map(\.dy), [3])
    }

    /// The same page 48 rows taller (a taller window, the document going
    /// on): `resized`, nothing changed in the common part.
    func testAPageRenderedTallerIsResized() throws {
        let (found, difference) = try status(screen(), screen(height: 208))
        XCTAssertEqual(found, .resized)
        XCTAssertEqual(difference.pixels, 0)
        XCTAssertEqual(try status(screen(height: 208), screen()).0, .resized)
    }

    /// Changed (most real change first), resized, shifted, added, removed,
    /// noise; ties by path.
    func testSheetsOrder() {
        func pair(_ name: String, _ status: PairStatus, _ pixels: Int = 0) -> ComparedPair {
            let path = PathName(name)
            return ComparedPair(path: path, baseline: path, relative: path, status: status, pixels: pixels,
                                percent: status == .added || status == .removed ? 100 : 0.1)
        }
        let pairs = [pair("n.png", .noise), pair("r.png", .removed, 9), pair("a.png", .added, 9),
                     pair("s.png", .shifted), pair("z.png", .resized), pair("c1.png", .changed, 5),
                     pair("c2.png", .changed, 50), pair("b.png", .shifted)]
        XCTAssertEqual(pairs.sorted(by: ComparedPair.moreChanged).map(\.relative.description),
                       ["c2.png", "c1.png", "z.png", "b.png", "s.png", "a.png", "r.png", "n.png"])
    }
}
