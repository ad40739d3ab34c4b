import Foundation
import Glibc
import XCTest

/// `--shard I/N` and `--shard auto` (docs/scale-out.md): the N runs write
/// exactly what one run writes, each file once; bad values are usage errors.
final class ShardTests: CLITestCase {
    private let sheetArguments = ["--sheets", "--max", "3", "--size", "120x80", "--jobs", "2", "in", "-o", "OUT/s-{n}.png"]

    private func reference(_ arguments: [String]) throws -> [String: [UInt8]] {
        makeFolder("ref")
        let result = try collage(arguments.map { $0.replacingOccurrences(of: "OUT", with: "ref") })
        XCTAssertEqual(result.status, 0, result.summary)
        let made = outputs("ref")
        XCTAssertGreaterThan(made.count, 7, "enough sheets for 7 shards to matter")
        return made
    }

    func testSheetsOverOneTwoThreeAndSevenShards() throws {
        makeShardPhotos("in", count: 26, folders: 3)
        let expected = try reference(sheetArguments)
        for shards in [1, 2, 3, 7] {
            try assertShardsMake(expected, folder: "out\(shards)", shards: shards, arguments: sheetArguments)
        }
    }

    /// --require-even drops a sheet's odd image (later sheets' numbers and
    /// indices still follow), and a layout that needs the sheet's shapes.
    func testSheetsWithRequireEvenAndJustified() throws {
        makeShardPhotos("in", count: 23, folders: 2)
        let arguments = ["--sheets", "--max", "3", "--require-even", "--layout", "justified", "--size", "120x80",
                         "in", "-o", "OUT/sheet.png"]
        let expected = try reference(arguments)
        for shards in [2, 3, 7] {
            try assertShardsMake(expected, folder: "out\(shards)", shards: shards, arguments: arguments)
        }
    }

    func testPerFolderOverOneTwoThreeAndSevenShards() throws {
        makeShardPhotos("in", count: 40, folders: 9)
        let arguments = ["--per-folder", "--size", "120x80", "in", "-o", "OUT/{path}.png"]
        let expected = try reference(arguments)
        XCTAssertEqual(expected.count, 10, "nine folders and the root")
        for shards in [1, 2, 3, 7] {
            try assertShardsMake(expected, folder: "out\(shards)", shards: shards, arguments: arguments)
        }
    }

    /// Each batch system's variables give the shard that I/N names.
    func testAutoFromEachBatchSystem() throws {
        makeShardPhotos("in", count: 20, folders: 2)
        let run = sheetArguments.map { $0.replacingOccurrences(of: "OUT", with: "explicit") }
        makeFolder("explicit")
        var explicit: [[String]] = []
        for index in 0..<3 {
            let result = try collage(run + ["--json", "--shard", "\(index)/3"])
            XCTAssertEqual(result.status, 0, result.summary)
            explicit.append(writtenNames(result))
        }
        let systems: [(String, (Int) -> [String: String])] = [
            ("slurm", { ["SLURM_ARRAY_TASK_ID": "\(5 + $0)", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "3"] }),
            ("aws", { ["AWS_BATCH_JOB_ARRAY_INDEX": "\($0)", "AWS_BATCH_JOB_ARRAY_SIZE": "3"] }),
            ("cloudrun", { ["CLOUD_RUN_TASK_INDEX": "\($0)", "CLOUD_RUN_TASK_COUNT": "3"] }),
        ]
        for (name, environment) in systems {
            makeFolder(name)
            for index in 0..<3 {
                let arguments = sheetArguments.map { $0.replacingOccurrences(of: "OUT", with: name) }
                let result = try collage(arguments + ["--json", "--shard", "auto"], environment: environment(index))
                XCTAssertEqual(result.status, 0, "\(name) \(index): \(result.summary)")
                XCTAssertEqual(writtenNames(result), explicit[index], "\(name) task \(index) is shard \(index)/3")
                let summary = events(jsonEvents(result), "summary").last
                XCTAssertEqual(summary.flatMap { field($0, "shard") }, "\(index)/3")
            }
            XCTAssertEqual(outputs(name), outputs("explicit"), name)
        }
    }

    /// One line naming the problem, 64, nothing written; the input is a
    /// FIFO no one writes to, so a run that read an image would hang.
    func testBadValuesAreUsageErrors() throws {
        makeFolder("in")
        makeFolder("out")
        XCTAssertEqual(mkfifo(path("in/blocked.png"), 0o644), 0)
        let cases: [([String], [String: String], String)] = [
            (["--shard", "0/2"], [:], "--sheets, --per-folder, --group-by or --frames"),
            (["--sheets", "--shard", "2/2"], [:], "less than N"),
            (["--sheets", "--shard", "5/3"], [:], "less than N"),
            (["--sheets", "--shard", "0/0"], [:], "at least 1"),
            (["--sheets", "--shard=-1/2"], [:], "whole numbers"),
            (["--sheets", "--shard", "1/-2"], [:], "whole numbers"),
            (["--sheets", "--shard", "a/4"], [:], "whole numbers"),
            (["--sheets", "--shard", "1/4x"], [:], "whole numbers"),
            (["--sheets", "--shard", "3"], [:], "I/N"),
            (["--per-folder", "--shard", "1/2/3"], [:], "I/N"),
            (["--sheets", "--shard", "auto"], [:], "no batch array"),
            (["--sheets", "--shard", "auto"], ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0",
                                               "SLURM_ARRAY_TASK_COUNT": "4"], "less than N"),
            (["--sheets", "--shard", "auto"], ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_MIN": "0",
                                               "SLURM_ARRAY_TASK_COUNT": "4"], "whole number"),
            (["--sheets", "--shard", "auto"], ["AWS_BATCH_JOB_ARRAY_INDEX": "1"], "AWS_BATCH_JOB_ARRAY_SIZE"),
            (["--sheets", "--shard", "auto"], ["CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "0"], "at least 1"),
        ]
        for (arguments, environment, mention) in cases {
            let output = arguments.contains("--per-folder") ? "out/{path}.png" : "out/s.png"
            let result = try collage(arguments + ["in", "-o", output], environment: environment, timeout: 60)
            XCTAssertEqual(result.status, 64, "\(arguments) \(environment): \(result.summary)")
            XCTAssertEqual(result.stderrLines.count, 1, result.summary)
            XCTAssertTrue(result.stderrText.contains(mention), "\(arguments): mentions '\(mention)'\n\(result.summary)")
            XCTAssertEqual(listingText("out"), [], "nothing written")
        }
    }

    /// --dry-run --shard plans only the shard's sheets, named as one run names them.
    func testDryRunPlansOnlyItsSheets() throws {
        makeShardPhotos("in", count: 20, folders: 2)  // 7 sheets of up to 3
        let arguments = sheetArguments.map { $0.replacingOccurrences(of: "OUT", with: "out") }
        let result = try collage(arguments + ["--dry-run", "--json", "--shard", "1/3"])
        XCTAssertEqual(result.status, 0, result.summary)
        let planned = events(jsonEvents(result), "planned")
        XCTAssertEqual(planned.compactMap { $0["sheet"] as? Int }, [2, 5])
        XCTAssertEqual(planned.compactMap { field($0, "output") }, ["out/s-0002.png", "out/s-0005.png"])
        XCTAssertFalse(exists("out"), "a dry run writes nothing")
    }

    /// A shard's sheets are planned as one run plans them: the same images,
    /// rectangles and captions, `{index}` counting the other shards' images.
    func testDryRunShardsPlanWhatOneRunPlans() throws {
        makeShardPhotos("in", count: 17, folders: 2)
        let arguments = ["--sheets", "--max", "4", "--layout", "justified", "--label", "{index} {name}", "--dry-run",
                         "--json", "in", "-o", "out/s.png"]
        let whole = try collage(arguments)
        XCTAssertEqual(whole.status, 0, whole.summary)
        let expected = events(jsonEvents(whole), "planned").map(NSDictionary.init(dictionary:))
        XCTAssertEqual(expected.count, 5)
        var planned: [Int: NSDictionary] = [:]
        for index in 0..<2 {
            let result = try collage(arguments + ["--shard", "\(index)/2"])
            XCTAssertEqual(result.status, 0, result.summary)
            for event in events(jsonEvents(result), "planned") {
                planned[event["sheet"] as? Int ?? 0] = NSDictionary(dictionary: event)
            }
        }
        XCTAssertEqual((1...5).compactMap { planned[$0] }, expected)
    }
}
