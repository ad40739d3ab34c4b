import Dispatch
import FileFacts
import Locking
import Logging
import XCTest
@testable import CollageKit
@testable import Vips

/// What a `--diff` run spends on a pair: both sides decoded at once when
/// the run has more than one job, and nothing kept for cells that
/// `--dry-run` does not draw.
final class DiffWorkTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try diffFolders() }

    override func tearDown() { folder = nil }

    private func changedPair(_ name: String) throws {
        try writeFile(stripedPage(box: (40, 100, RGB(red: 220, green: 20, blue: 20))), to: folder("base/" + name))
        try writeFile(stripedPage(box: (40, 100, RGB(red: 20, green: 20, blue: 220))), to: folder("shots/" + name))
    }

    /// Each decode waits (at most 20 s) for the other side's to begin: when
    /// the sides are decoded one after the other, the first waits in vain.
    private final class MeetingDecodes: StageInstrumentation {
        private let entered = Locked(0), met = Locked([Bool]())
        private let both = DispatchSemaphore(value: 0)
        var meetings: [Bool] { met.withLock { $0 } }

        func decoding<R>(_ body: () throws -> R) rethrows -> R {
            if entered.withLock({ $0 += 1; return $0 }) == 2 { both.signal(); both.signal() }
            let together = both.wait(timeout: .now() + 20) == .success
            met.withLock { $0.append(together) }
            return try body()
        }

        func scanned() {}
        func holding(tileBytes bytes: Int) -> HeldTile { HeldTile {} }
        func beforeSave(_ sheet: Int) {}
        func afterSave() {}
        func reported(_ sheet: Int) {}
    }

    /// With two jobs, the baseline and the current picture of one pair are
    /// decoded at the same time (each decode begins while the other runs),
    /// and the pair is compared as when they are decoded one by one.
    func testBothSidesOfAPairAreDecodedAtOnceWithTwoJobs() throws {
        try changedPair("a.png")
        var configuration = CollageConfiguration(inputs: [.path(folder("shots"))])
        configuration.diff = DiffSettings(baseline: folder("base"))
        configuration.jobs = 2
        configuration = ResolvedRun.diff(configuration)
        let pair = DiffPair(relative: PathName("a.png"), current: folder("shots/a.png"), baseline: folder("base/a.png"),
                            inCurrent: true, inBaseline: true)
        let meeting = MeetingDecodes()
        var atOnce = PairComparison(probe: configuration.probe, settings: configuration.diff!, instrumentation: meeting)
        atOnce.bothSidesAtOnce = true
        let oneByOne = PairComparison(probe: configuration.probe, settings: configuration.diff!)
        func compared(_ comparison: PairComparison) throws -> ComparedPair {
            let outcome = comparison.compare(comparison.open(pair, report: { XCTFail("\($0)") }))
            guard case .compared(let compared) = outcome else { throw TestFailure("not compared: \(outcome)") }
            return compared
        }
        let (together, apart) = (try compared(atOnce), try compared(oneByOne))
        XCTAssertEqual(meeting.meetings, [true, true], "each side's decode began while the other's was running")
        XCTAssertEqual(together.status, .changed)
        XCTAssertEqual([together.pixels, together.raw], [apart.pixels, apart.raw])
        XCTAssertGreaterThan(together.pixels, 0)

        XCTAssertTrue(DiffSheets(configuration: configuration).comparison.bothSidesAtOnce, "two jobs: both at once")
        var one = configuration
        one.jobs = 1
        XCTAssertFalse(DiffSheets(configuration: one).comparison.bothSidesAtOnce, "--jobs 1 uses one core")
    }

    /// `--dry-run` draws no cell, so comparing keeps nothing for one (the
    /// old run kept each changed pair's difference and panels until the
    /// end); each side is still decoded once, and the run exits 1.
    func testADryRunKeepsNothingForCells() throws {
        for name in ["a.png", "b.png", "c.png"] { try changedPair(name) }
        var configuration = CollageConfiguration(inputs: [.path(folder("shots"))])
        configuration.diff = DiffSettings(baseline: folder("base"))
        configuration.output = folder("diff-{n}.png")
        (configuration.sheets, configuration.dryRun, configuration.jobs) = (true, true, 2)
        let instrumentation = RunInstrumentation()
        let (outcome, events) = runDiff(configuration, instrumentation: instrumentation)
        XCTAssertEqual(outcome.status, .differs, "\(outcome)")
        let statuses = events.compactMap { if case .compared(let pair) = $0 { pair.status } else { nil } }
        XCTAssertEqual(statuses, [.changed, .changed, .changed])
        XCTAssertEqual(instrumentation.snapshot.decodes, 3 * 2, "each side decoded once")
        XCTAssertEqual(instrumentation.snapshot.peakHeldTiles, 0, "nothing kept for cells no one draws")
        XCTAssertFalse(events.contains { if case .written = $0 { true } else { false } }, "no sheet")
    }
}
