import FileFacts
import Logging
import XCTest
@testable import CollageKit
@testable import Vips

/// A `--diff` cell is drawn from what comparing kept of its pair (each
/// side decoded once in the run), with the pixels a cell drawn from the
/// files has.
final class DiffCellKeptTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try diffFolders() }

    override func tearDown() { folder = nil }

    private func write(_ name: String, base: [UInt8], shot: [UInt8]) throws {
        try writeFile(base, to: folder("base/" + name))
        try writeFile(shot, to: folder("shots/" + name))
    }

    /// Two changed pairs, one resized and one added: each side that exists
    /// is decoded once (to compare it, or, added, for its cell), none again
    /// for the cells. The old cells read each compared pair again: 2 x 3 + 1 + 6.
    func testADiffRunWithSheetsDecodesEachSideOnce() throws {
        let red = RGB(red: 220, green: 20, blue: 20), blue = RGB(red: 20, green: 20, blue: 220)
        try write("a.png", base: stripedPage(box: (40, 100, red)), shot: stripedPage(box: (40, 100, blue)))
        try write("b.png", base: stripedPage(box: nil), shot: stripedPage(box: (150, 300, red)))
        try write("c.png", base: stripedPage(box: nil), shot: stripedPage(box: nil, height: 420))
        try writeFile(stripedPage(box: nil), to: folder("shots/d.png"))
        var configuration = CollageConfiguration(inputs: [.path(folder("shots"))])
        configuration.diff = DiffSettings(baseline: folder("base"))
        configuration.output = folder("diff-{n}.png")
        (configuration.sheets, configuration.maxImages, configuration.jobs) = (true, 2, 2)
        let instrumentation = RunInstrumentation()
        let (outcome, events) = runDiff(configuration, instrumentation: instrumentation)
        XCTAssertEqual(outcome.status, .differs, "\(outcome)")
        let statuses = events.compactMap { if case .compared(let pair) = $0 { pair.status } else { nil } }
        XCTAssertEqual(statuses.count, 4)
        let written = events.compactMap { if case .written(let sheet) = $0 { sheet.images.count } else { nil } }
        XCTAssertEqual(written, [2, 2], "every pair drawn, on two sheets")
        XCTAssertEqual(instrumentation.snapshot.decodes, 3 * 2 + 1, "each side decoded once")
        XCTAssertEqual(instrumentation.snapshot.heldTiles, 0, "what was kept for the cells is let go")
    }

    /// One pair compared with and without its cell kept, drawn at `width` x `height`.
    private func cells(_ name: String, width: Int, height: Int, keptFor frame: (Int, Int))
        throws -> (kept: PixelBuffer, read: PixelBuffer, pair: ComparedPair, decodes: Int) {
        var configuration = CollageConfiguration(inputs: [.path(folder("shots"))])
        configuration.diff = DiffSettings(baseline: folder("base"))
        if name == "c.png" { configuration.diff!.tolerance = .pixels(1_000_000) }  // `resized`: the whole pictures
        configuration = ResolvedRun.diff(configuration)
        let pair = DiffPair(relative: PathName(name), current: folder("shots/" + name), baseline: folder("base/" + name),
                            inCurrent: true, inBaseline: true)
        let instrumentation = RunInstrumentation()
        var keeping = PairComparison(probe: configuration.probe, settings: configuration.diff!,
                                     instrumentation: instrumentation)
        keeping.keeping = { try? DiffCell.kept($0, $1, $2, $3, width: frame.0, height: frame.1) }
        let reading = PairComparison(probe: configuration.probe, settings: configuration.diff!)
        func drawn(_ comparison: PairComparison) throws -> (PixelBuffer, ComparedPair) {
            let outcome = comparison.compare(comparison.open(pair, report: { print($0) }))
            guard case .compared(let compared) = outcome else { throw TestFailure("not compared: \(outcome)") }
            let cell = DiffCell(comparison: comparison, background: .white, font: "DejaVu Sans")
            return (try cell.render(compared, width: width, height: height).get(), compared)
        }
        let (kept, pairKept) = try drawn(keeping), (read, _) = try drawn(reading)
        XCTAssertNil(keeping.kept.take(PathName(name)), "the cell took what was kept")
        return (kept, read, pairKept, instrumentation.snapshot.decodes)
    }

    private func bytes(_ pixels: PixelBuffer) -> [UInt8] { pixels.withUnsafeBytes { Array($0) } }

    /// A region (a changed box on a page) and whole pictures (a resized
    /// pair): the cell drawn from what was kept for its size is the cell
    /// drawn from the files, byte for byte; a smaller cell is the same size
    /// and near it (shrunk twice).
    func testACellDrawnFromWhatWasKeptHasTheFilesPixels() throws {
        let red = RGB(red: 220, green: 20, blue: 20), blue = RGB(red: 20, green: 20, blue: 220)
        try write("a.png", base: stripedPage(box: (40, 100, red)), shot: stripedPage(box: (40, 100, blue)))
        try write("c.png", base: stripedPage(box: nil), shot: stripedPage(box: nil, height: 460))
        for name in ["a.png", "c.png"] {
            for (width, height) in [(300, 80), (220, 50)] {
                let drawn = try cells(name, width: width, height: height, keptFor: (300, 80))
                XCTAssertEqual(drawn.pair.status, name == "a.png" ? .changed : .resized)
                XCTAssertEqual(name == "a.png", drawn.pair.region != nil && DiffCell.crop(drawn.pair) != nil)
                XCTAssertEqual(drawn.decodes, 2, "\(name): the cell drawn from what was kept")
                let (a, b) = (bytes(drawn.kept), bytes(drawn.read))
                XCTAssertEqual(a.count, b.count)
                if width == 300 {
                    XCTAssertEqual(a, b, "\(name) at the size kept for: the same pixels")
                } else {
                    let far = zip(a, b).filter { abs(Int($0) - Int($1)) > 48 }.count
                    XCTAssertLessThan(far, a.count / 20, "\(name) smaller: near the files' cell")
                }
            }
        }
        // A cell larger than what was kept for is drawn from the files.
        let larger = try cells("a.png", width: 400, height: 120, keptFor: (300, 80))
        XCTAssertEqual(larger.decodes, 4)
        XCTAssertEqual(bytes(larger.kept), bytes(larger.read))
    }

    /// What is kept counts in the decode budget while held (and as held
    /// tiles), within a third of it; taking it lets go.
    func testWhatIsKeptCountsInTheBudget() throws {
        let picture = try FullPicture(PixelBuffer(width: 100, height: 100, fill: .white))
        let difference = try Difference.compare(picture, picture, options: DifferenceOptions())
        var cell = KeptCell(difference: difference, width: 100, height: 100)
        cell.panels = [picture]  // 30000 bytes
        let kept = KeptDifferences(limit: 48 << 20), budget = DecodeBudget(limit: 150_000)
        let instrumentation = RunInstrumentation()
        kept.account(to: budget, instrumentation: instrumentation)
        kept.keep(cell, for: PathName("a.png"))
        XCTAssertEqual(budget.used.now, 30000)
        XCTAssertEqual(instrumentation.snapshot.heldTileBytes, 30000)
        kept.keep(cell, for: PathName("b.png"))
        XCTAssertEqual(budget.used.now, 30000, "past a third of the budget: not kept")
        XCTAssertTrue(budget.tryAcquire(10_000))  // a decode running
        XCTAssertFalse(budget.tryAcquire(120_000), "what starts next fits beside what is kept")
        XCTAssertTrue(kept.draws(PathName("a.png"), width: 100, height: 100))
        XCTAssertFalse(kept.draws(PathName("a.png"), width: 101, height: 100))
        XCTAssertNotNil(kept.take(PathName("a.png")))
        XCTAssertNil(kept.take(PathName("b.png")))
        XCTAssertEqual(budget.used.now, 10_000)
        XCTAssertEqual(instrumentation.snapshot.heldTileBytes, 0)
        XCTAssertTrue(budget.tryAcquire(120_000))
    }
}
