import Foundation
import Glibc
import XCTest

/// A shard killed half-way (a batch system's task lost with its node) and
/// run again with --skip-unchanged does only the rest of its part.
final class ShardResumeTests: CLITestCase {
    private func identity(_ relative: String) -> (inode: UInt, modified: Int)? {
        var info = stat()
        guard stat(path(relative), &info) == 0 else { return nil }
        return (UInt(info.st_ino), info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
    }

    func testKilledShardRunAgainKeepsItsFinishedSheets() throws {
        // One image a sheet, on large PNG canvases: each sheet takes a while
        // to encode, so the run is still going when the first is reported.
        makeShardPhotos("in", count: 24, folders: 1)
        makeFolder("out")
        makeFolder("whole")
        let arguments = ["--sheets", "--max", "1", "--size", "2400x1800", "--jobs", "1", "--skip-unchanged", "--json",
                         "in", "--shard", "0/2"]
        let process = try RunningProcess(arguments: command((arguments + ["-o", "out/s.png"]).map(b)), directory: dir)
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "written" }, "a first sheet is written")
        process.send(SIGKILL)
        let killed = process.wait(timeout: 60)
        XCTAssertEqual(killed.signal, SIGKILL, "killed before it finished: \(killed.summary)")
        let finished = events(jsonEvents(killed), "written").compactMap { field($0, "output") }
        XCTAssertFalse(finished.isEmpty)
        let before = finished.map { identity($0) }

        let again = try collage(arguments + ["-o", "out/s.png"])
        XCTAssertEqual(again.status, 0, again.summary)
        let all = jsonEvents(again)
        XCTAssertEqual(events(all, "unchanged").compactMap { field($0, "output") }, finished,
                       "the sheets written before the kill are kept")
        let rewritten = Set(events(all, "written").compactMap { field($0, "output") })
        XCTAssertTrue(rewritten.isDisjoint(with: finished), "none of them is written again")
        for (name, identity) in zip(finished, before) {
            let now = self.identity(name)
            XCTAssertEqual(now?.inode, identity?.inode, "\(name) is the same file")
            XCTAssertEqual(now?.modified, identity?.modified, "\(name) was not touched")
        }
        // What the shard wrote, in two goes, is what it writes in one.
        let whole = try collage(arguments + ["-o", "whole/s.png"])
        XCTAssertEqual(whole.status, 0, whole.summary)
        XCTAssertEqual(outputs("out"), outputs("whole"))
        XCTAssertEqual(outputs("out").count, 12, "sheets 1, 3, … 23")

        // Run once more: the shard is complete and nothing is redone.
        let third = try collage(arguments + ["-o", "out/s.png"])
        XCTAssertEqual(third.status, 0, third.summary)
        XCTAssertEqual(events(jsonEvents(third), "written").count, 0)
        XCTAssertEqual(events(jsonEvents(third), "unchanged").count, 12)
        XCTAssertEqual(listingText("out").filter { $0.hasPrefix(".") }, [".s.png.shard-0-of-2.collage-state"],
                       "the shard's own state, no lock or temporary file left")
    }
}
