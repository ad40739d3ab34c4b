import Foundation
import Glibc
import XCTest

/// A run from a plan behaves as one without: `--html` (the first shard
/// writes the page of the whole job, from the plan), `--skip-unchanged`.
final class PlanRunTests: CLITestCase {
    private let arguments = ["--sheets", "--max", "3", "--size", "120x80", "--label", "{name}", "in",
                             "-o", "OUT/s-{n}.png", "--html", "OUT/index.html"]

    private func run(_ folder: String, _ extra: [String]) throws -> ProcessResult {
        makeFolder(folder)
        return try collage(extra + arguments.map { $0.replacingOccurrences(of: "OUT", with: folder) })
    }

    /// Shard 0 writes the page of every sheet, the same bytes as one run's;
    /// the other shards write none.
    func testFirstShardWritesTheWholeJobsPage() throws {
        makeShardPhotos("in", count: 14, folders: 2)
        XCTAssertEqual(try run("ref", []).status, 0)
        XCTAssertEqual(try run("out", ["--plan", "job.plan"]).status, 0)
        XCTAssertFalse(exists("out/index.html"), "planning writes no page")
        for index in [1, 2, 0] {
            let result = try collage(["--from-plan", "job.plan", "--shard", "\(index)/3"])
            XCTAssertEqual(result.status, 0, result.summary)
            XCTAssertEqual(exists("out/index.html"), index == 0, "only shard 0 writes the page")
        }
        let (made, expected) = (outputs("out"), outputs("ref"))
        XCTAssertEqual(made.keys.sorted(), expected.keys.sorted())
        for (name, bytes) in expected where made[name] != bytes { XCTFail("\(name) differs from one run's") }
    }

    /// A shard run again with --skip-unchanged keeps what it wrote; an
    /// output removed is redone, and only it.
    func testSkipUnchangedFromAPlan() throws {
        makeShardPhotos("in", count: 14, folders: 2)
        XCTAssertEqual(try run("out", ["--plan", "job.plan"]).status, 0)
        let first = try collage(["--from-plan", "job.plan", "--shard", "0/2", "--skip-unchanged", "--json"])
        XCTAssertEqual(first.status, 0, first.summary)
        XCTAssertEqual(events(jsonEvents(first), "written").count, 3)
        XCTAssertEqual(unlink(path("out/s-0003.png")), 0)
        let again = try collage(["--from-plan", "job.plan", "--shard", "0/2", "--skip-unchanged", "--json"])
        XCTAssertEqual(again.status, 0, again.summary)
        XCTAssertEqual(writtenNames(again), ["s-0003.png"], again.summary)
        XCTAssertEqual(events(jsonEvents(again), "unchanged").count, 2, again.summary)
    }

    /// Names that are not UTF-8 (inputs and outputs) go through the plan as
    /// their bytes: the sheets are one run's.
    func testPathsThatAreNotUTF8() throws {
        makeFolder("in")
        let folder = b("in/caf") + [0xE9]
        XCTAssertEqual(withCPath(path(folder)) { mkdir($0, 0o755) }, 0)
        for index in 0..<7 { writeImage(palette[index], to: folder + b("/p\(index)") + [0xFF] + b(".png")) }
        let output = b("OUT/s-") + [0xE8] + b("-{n}.png")
        let job = [b("--sheets"), b("--max"), b("3"), b("--size"), b("120x80"), b("in")]
        for name in ["ref", "out"] { makeFolder(name) }
        let one = try collage(job + [b("-o"), b("ref") + output.dropFirst(3)])
        XCTAssertEqual(one.status, 0, one.summary)
        let planned = try collage([b("--plan"), b("job.plan")] + job + [b("-o"), b("out") + output.dropFirst(3)])
        XCTAssertEqual(planned.status, 0, planned.summary)
        for index in 0..<2 {
            let result = try collage(["--from-plan", "job.plan", "--shard", "\(index)/2"])
            XCTAssertEqual(result.status, 0, result.summary)
        }
        XCTAssertEqual(outputs("out").count, 3)
        XCTAssertEqual(outputs("out"), outputs("ref"))
    }
}
