import FileFacts
import Glibc
import Logging
import XCTest
@testable import CollageKit
@testable import Vips

/// The same change once: pairs whose change is the same (same place, same
/// pixels before and after) are one group, one cell.
final class DiffGroupTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// Page `n`: its own grey strip (pages differ), a logo at (10, 30)
    /// in `logo`'s colour.
    private func page(_ n: Int, logo: RGB) throws -> [UInt8] {
        try Encoder.encode(PixelBuffer(width: 80, height: 60) { x, y in
            if y < 8 { return x < 2 * n + 2 ? RGB(red: 90, green: 90, blue: 90) : .white }
            return (10..<30).contains(x) && (30..<40).contains(y) ? logo : .white
        }, suffix: ".png", orientation: nil).bytes
    }

    private func run(_ configuration: CollageConfiguration) -> RunResult {
        let diff = ResolvedRun.diff(configuration)
        let run = CollageRun(configuration: diff, source: DiffSheets(configuration: diff), logger: Logger(label: "test"))
        let log = EventLog()
        let subscription = run.events.sink { log.record($0) }
        let outcome = run.run()
        subscription.cancel()
        return RunResult(outcome: outcome, events: log.events)
    }

    /// The logo recoloured on 30 pages: one group, one cell captioned for
    /// all 30; another change on a 31st page is a group of its own.
    func testIdenticalChangesOnThirtyPagesAreOneGroup() throws {
        for side in ["base", "shots"] { try makeDirectory(folder(side)) }
        let (old, new) = (RGB(red: 200, green: 30, blue: 30), RGB(red: 30, green: 30, blue: 200))
        for n in 1...30 {
            try writeFile(page(n, logo: old), to: folder("base/page\(n).png"))
            try writeFile(page(n, logo: new), to: folder("shots/page\(n).png"))
        }
        try writeFile(page(31, logo: old), to: folder("base/page31.png"))
        try writeFile(page(31, logo: RGB(red: 30, green: 200, blue: 30)), to: folder("shots/page31.png"))
        var configuration = CollageConfiguration(inputs: [.path(folder("shots"))])
        configuration.diff = DiffSettings(baseline: folder("base"))
        configuration.output = folder("diff.png")
        configuration.jobs = 2
        let result = run(configuration)
        XCTAssertEqual(result.outcome.status, .differs, "\(result.outcome)")
        let compared = result.events.compactMap { if case .compared(let pair) = $0 { pair } else { nil } }
        XCTAssertEqual(compared.count, 31)
        let groups = Dictionary(grouping: compared, by: { $0.group ?? 0 })
        XCTAssertEqual(groups.count, 2, "\(groups.mapValues(\.count))")
        XCTAssertEqual(groups.values.map(\.count).sorted(), [1, 30])
        XCTAssertTrue(compared.allSatisfy { $0.status == .changed && $0.pixels == 200 })
        XCTAssertEqual(result.written.map(\.images.count), [2], "one cell for the 30, one for the other")
        let cells = DiffSheets.grouped(compared.sorted(by: ComparedPair.moreChanged))
        XCTAssertEqual(cells.map(\.members).sorted(), [1, 30])
        var captions = Captions()
        captions.label = try Template("{path}", fields: Template.labelFields)
        let header = ImageHeader(width: 80, height: 60, orientation: 1, format: "diff")
        let grouped = try XCTUnwrap(cells.first { $0.members == 30 })
        XCTAssertEqual(captions.labelText(path: grouped.path, header: header, index: 1, pair: grouped),
                       "same change in 30 screenshots · \(grouped.relative)")
    }
}
