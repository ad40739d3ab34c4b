import Foundation
import Glibc
import XCTest

/// `--plan FILE` and `--from-plan FILE [--shard I/N]` (docs/scale-out.md):
/// the job planned once from the headers, then run from the plan, writes
/// byte for byte what one run writes; each shard opens only its own images.
final class PlanTests: CLITestCase {
    private let sheetArguments = ["--sheets", "--max", "3", "--size", "120x80", "--label", "{index} {name}",
                                  "in", "-o", "OUT/s-{n}.png"]

    private func reference(_ arguments: [String]) throws -> [String: [UInt8]] {
        makeFolder("ref")
        let result = try collage(arguments.map { $0.replacingOccurrences(of: "OUT", with: "ref") })
        XCTAssertEqual(result.status, 0, result.summary)
        return outputs("ref")
    }

    /// Plans into `folder`'s names: writes no image, says what it planned.
    @discardableResult
    private func plan(_ arguments: [String], folder: String, to plan: String = "job.plan",
                      file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        makeFolder(folder)
        let result = try collage(["--plan", plan, "--json"] + arguments.map { $0.replacingOccurrences(of: "OUT", with: folder) })
        XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
        XCTAssertEqual(outputs(folder), [:], "planning writes no collage", file: file, line: line)
        XCTAssertTrue(exists(plan), "the plan is written", file: file, line: line)
        return jsonEvents(result, file: file, line: line)
    }

    /// The shards of the plan make exactly `reference`, each file once.
    private func assertPlanShardsMake(_ reference: [String: [UInt8]], folder: String, shards: Int,
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        var writers: [String: Int] = [:]
        for index in 0..<shards {
            let result = try collage(["--from-plan", "job.plan", "--json", "--shard", "\(index)/\(shards)"])
            XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
            let summary = events(jsonEvents(result, file: file, line: line), "summary").last
            XCTAssertEqual(summary.flatMap { field($0, "shard") }, "\(index)/\(shards)", file: file, line: line)
            for name in writtenNames(result, file: file, line: line) {
                if let other = writers[name] { XCTFail("\(name) by shards \(other) and \(index)", file: file, line: line) }
                writers[name] = index
            }
        }
        let made = outputs(folder)
        XCTAssertEqual(made.keys.sorted(), reference.keys.sorted(), "\(shards) shards: the same files", file: file, line: line)
        for (name, bytes) in reference where made[name] != bytes {
            XCTFail("\(shards) shards from the plan: \(name) differs from one run's", file: file, line: line)
        }
        XCTAssertEqual(listingText(folder).filter { $0.hasPrefix(".") }, [], "no lock, state or temporary file left",
                       file: file, line: line)
    }

    func testPlanThenOneTwoThreeAndSevenShardsMakeWhatOneRunMakes() throws {
        makeShardPhotos("in", count: 26, folders: 3)
        writeImage(palette[0], to: "in/tall.png", width: 40, height: 80)
        let expected = try reference(sheetArguments)
        XCTAssertGreaterThan(expected.count, 7, "enough sheets for 7 shards to matter")
        for shards in [1, 2, 3, 7] {
            let planned = try plan(sheetArguments, folder: "out\(shards)")
            XCTAssertEqual(events(planned, "planned").count, expected.count, "--json tells each sheet planned")
            XCTAssertEqual(events(planned, "summary").last?["planned"] as? Int, expected.count)
            try assertPlanShardsMake(expected, folder: "out\(shards)", shards: shards)
        }
    }

    /// A layout that needs the sheet's shapes, and --require-even.
    func testJustifiedWithRequireEvenFromAPlan() throws {
        makeShardPhotos("in", count: 23, folders: 2)
        writeImage(palette[3], to: "in/wide.png", width: 160, height: 48)
        let arguments = ["--sheets", "--max", "3", "--require-even", "--layout", "justified", "--size", "120x80",
                         "in", "-o", "OUT/sheet.png"]
        let expected = try reference(arguments)
        for shards in [2, 3, 7] {
            try plan(arguments, folder: "out\(shards)")
            try assertPlanShardsMake(expected, folder: "out\(shards)", shards: shards)
        }
    }

    /// --per-folder: each shard runs the plan's folders whose path hashes to it.
    func testPerFolderFromAPlan() throws {
        makeShardPhotos("in", count: 40, folders: 9)
        writeImage(palette[2], to: "in/f3/tall.png", width: 40, height: 80)
        let arguments = ["--per-folder", "--size", "120x80", "in", "-o", "OUT/{path}.png"]
        let expected = try reference(arguments)
        XCTAssertEqual(expected.count, 10, "nine folders and the root")
        for shards in [1, 2, 3, 7] {
            try plan(arguments, folder: "out\(shards)")
            try assertPlanShardsMake(expected, folder: "out\(shards)", shards: shards)
        }
    }

    /// Without --sheets: the one collage, up to the cap.
    func testOneCollageFromAPlan() throws {
        makeShardPhotos("in", count: 9, folders: 2)
        let arguments = ["--size", "120x80", "in", "-o", "OUT/one.png"]
        let expected = try reference(arguments)
        try plan(arguments, folder: "out")
        let result = try collage(["--from-plan", "job.plan"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "out/one.png\n", "the path written, as without a plan")
        XCTAssertEqual(outputs("out"), expected)
    }

    /// The rejections the plan found are reported once, by shard 0, so the
    /// shards' summaries add up to one run's.
    func testSummariesAddUpToOneRuns() throws {
        makeShardPhotos("in", count: 14, folders: 2)
        writeImage(palette[1], to: "in/f0/tall.png", width: 40, height: 80)
        makeFolder("ref")
        let one = try collage(sheetArguments.map { $0.replacingOccurrences(of: "OUT", with: "ref") } + ["--json"])
        let whole = events(jsonEvents(one), "summary").last ?? [:]
        try plan(sheetArguments, folder: "out")
        var totals: [String: Int] = [:]
        for index in 0..<3 {
            let result = try collage(["--from-plan", "job.plan", "--json", "--shard", "\(index)/3"])
            XCTAssertEqual(result.status, 0, result.summary)
            let summary = events(jsonEvents(result), "summary").last ?? [:]
            for key in ["written", "used", "rejected", "failed"] { totals[key, default: 0] += summary[key] as? Int ?? 0 }
            let rejected = events(jsonEvents(result), "rejected").count
            XCTAssertEqual(rejected, index == 0 ? 1 : 0, "shard \(index) reports the plan's rejection only if first")
        }
        for key in ["used", "rejected", "failed"] { XCTAssertEqual(totals[key], whole[key] as? Int, key) }
    }

    /// strace: a shard opens exactly the images of its own sheets, no other.
    func testEachShardOpensOnlyItsOwnImages() throws {
        guard haveProgram("strace") else { throw XCTSkip("strace is not installed") }
        makeShardPhotos("in", count: 20, folders: 3)
        let planned = try plan(sheetArguments, folder: "out")
        let sheets = events(planned, "planned")
        for index in 0..<3 {
            let log = path("strace-\(index).log")
            let result = try runProcess([b("strace"), b("-f"), b("-e"), b("trace=openat,open"), b("-o"), b(log)]
                                        + command(["--from-plan", "job.plan", "--shard", "\(index)/3"].map(b)),
                                        directory: dir)
            XCTAssertEqual(result.status, 0, result.summary)
            let lines = String(decoding: contents(b(log)) ?? [], as: UTF8.self).split(separator: "\n")
            let opened = Set(lines.filter { $0.contains("\"in/") && !$0.contains("= -1") }.compactMap { line in
                line.split(separator: "\"").dropFirst().first.map(String.init)
            })
            let own = Set(sheets.filter { (($0["sheet"] as? Int ?? 0) - 1) % 3 == index }
                .flatMap { $0["images"] as? [String] ?? [] })
            XCTAssertFalse(own.isEmpty)
            XCTAssertEqual(opened, own, "shard \(index)/3 opened only its own sheets' images")
        }
    }
}
