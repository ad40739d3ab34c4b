import XCTest
@testable import CollageKit

/// The way a collage run finds its sheets, decided once per run from its
/// configuration (`RunStages.way`), as a table: each way is its own small
/// source over the same stages.
final class SheetWayTests: XCTestCase {
    func testEachConfigurationFindsItsSheetsOneWay() {
        let half = Shard(index: 1, count: 2)!
        let rows: [(String, (inout CollageConfiguration) -> Void, RunStages.Way)] = [
            ("one collage", { _ in }, .oneSheet),
            ("--sheets", { $0.sheets = true }, .decodedAhead),
            ("--layout justified", { $0.layoutName = "justified" }, .cutOnHeaders),
            ("--sheets --fit contain", { ($0.sheets, $0.layoutOptions.fit) = (true, .contain) }, .cutOnHeaders),
            ("--sheets --shard 1/2", { ($0.sheets, $0.shard) = (true, half) }, .sharded(half)),
            ("--shard without --sheets (a folder's run)", { $0.shard = half }, .oneSheet),
            ("--dry-run", { $0.dryRun = true }, .dryRun(nil)),
            ("--dry-run --sheets --shard 1/2", { ($0.dryRun, $0.sheets, $0.shard) = (true, true, half) }, .dryRun(half)),
            ("--from-plan", { $0.fromPlan = PathName("job.plan") }, .planned(PathName("job.plan"), Shard(index: 0, count: 1)!)),
            ("--from-plan --shard 1/2", { ($0.fromPlan, $0.shard) = (PathName("job.plan"), half) },
             .planned(PathName("job.plan"), half)),
        ]
        for (asked, configure, way) in rows {
            var configuration = CollageConfiguration(inputs: [.path(PathName("photos"))])
            configure(&configuration)
            XCTAssertEqual(RunStages.way(configuration, layout: configuration.layout), way, asked)
        }
    }
}
