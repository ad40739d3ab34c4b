import CollageTestSupport
import Foundation
import Glibc
import XCTest

/// `--pick` on the command line: a plan and its shards place one run's
/// sheets byte for byte, `--skip-unchanged` sees a changed pick, and what
/// it cannot be given with is a usage error.
final class PickTests: CLITestCase {
    private var samples: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples").path
    }

    /// Two bursts and three single shots, dated.
    private func makeDay() throws {
        makeFolder("in")
        func vips(_ arguments: String...) throws { try TestMedia.run("vips", arguments) }
        for (index, shift) in [0, 20, 40].enumerated() {
            try vips("crop", samples + "/aqua.jpg", path("in/a\(index).jpg"), "\(shift)", "0", "960", "600")
            try vips("crop", samples + "/dune.jpg", path("in/b\(index).jpg"), "\(shift)", "0", "960", "600")
        }
        for name in ["raindrops", "twowings", "greenmeadow"] { try vips("copy", samples + "/\(name).jpg", path("in/\(name).jpg")) }
        let times = [("09:00:0", "a"), ("10:00:0", "b")]
        for (time, burst) in times {
            for index in 0..<3 {
                try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2026:08:14 \(time)\(index)",
                                               path("in/\(burst)\(index).jpg")])
            }
        }
        for (hour, name) in [(11, "raindrops"), (12, "twowings"), (13, "greenmeadow")] {
            try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2026:08:14 \(hour):00:00",
                                           path("in/\(name).jpg")])
        }
    }

    func testAPlanAndThreeShardsPlaceOneRunsSheetsByteForByte() throws {
        try makeDay()
        let job = ["--pick", "--sheets", "--max", "2", "--size", "240x160", "--label", "{name}{stack}", "in"]
        for name in ["ref", "out"] { makeFolder(name) }
        let one = try collage(job + ["-o", "ref/s-{n}.png", "--json"])
        XCTAssertEqual(one.status, 0, one.summary)
        XCTAssertEqual(events(jsonEvents(one), "picked").count, 5, one.summary)
        XCTAssertEqual(events(jsonEvents(one), "stacked").count, 4, one.summary)
        XCTAssertEqual(try collage(["--plan", "job.plan"] + job + ["-o", "out/s-{n}.png"]).status, 0)
        for index in [2, 0, 1] {
            let shard = try collage(["--from-plan", "job.plan", "--shard", "\(index)/3"])
            XCTAssertEqual(shard.status, 0, shard.summary)
        }
        let (made, expected) = (outputs("out"), outputs("ref"))
        XCTAssertEqual(made.keys.sorted(), ["s-0001.png", "s-0002.png", "s-0003.png"])
        XCTAssertEqual(made.keys.sorted(), expected.keys.sorted())
        for (name, bytes) in expected where made[name] != bytes { XCTFail("\(name) differs from one run's") }
    }

    func testSkipUnchangedSeesAChangedPick() throws {
        try makeDay()
        let job = ["--pick", "--size", "240x160", "in", "-o", "day.png", "--skip-unchanged", "--json"]
        XCTAssertEqual(writtenNames(try collage(job)), ["day.png"])
        XCTAssertEqual(events(jsonEvents(try collage(job)), "unchanged").count, 1, "nothing changed")
        // A sharper frame of the first burst arrives: the pick may change, so the collage is made again.
        try TestMedia.run("vips", ["crop", samples + "/aqua.jpg", path("in/a3.jpg"), "60", "0", "960", "600"])
        XCTAssertEqual(writtenNames(try collage(job)), ["day.png"])
        // Without --pick the same output is another job.
        XCTAssertEqual(writtenNames(try collage(Array(job.dropFirst()))), ["day.png"])
    }

    /// The cap applies per folder (`--per-folder`) and per group
    /// (`--group-by day`): each album or day shows its own moments, a
    /// burst once.
    func testThePickIsPerFolderAndPerGroup() throws {
        try makeDay()
        func images(_ result: ProcessResult) -> [String: [String]] {
            var byOutput: [String: [String]] = [:]
            for event in events(jsonEvents(result), "written") {
                let output = String((field(event, "output") ?? "").split(separator: "/").last ?? "")
                byOutput[output] = ((event["images"] as? [String]) ?? []).map { String($0.split(separator: "/").last ?? "") }
            }
            return byOutput
        }
        // Albums: x holds the first burst and two single shots, y the second burst and one.
        for album in ["albums", "albums/x", "albums/y"] { makeFolder(album) }
        for name in ["a0", "a1", "a2", "raindrops", "twowings"] {
            try FileManager.default.copyItem(atPath: path("in/\(name).jpg"), toPath: path("albums/x/\(name).jpg"))
        }
        for name in ["b0", "b1", "b2", "greenmeadow"] {
            try FileManager.default.copyItem(atPath: path("in/\(name).jpg"), toPath: path("albums/y/\(name).jpg"))
        }
        let folders = try collage(["--per-folder", "--pick", "--max", "2", "--size", "240x160", "albums",
                                   "-o", "{dir}.png", "--json"])
        XCTAssertEqual(folders.status, 0, folders.summary)
        let albums = images(folders)
        XCTAssertEqual(albums.keys.sorted(), ["x.png", "y.png"])
        XCTAssertEqual(albums["x.png"]?.count, 2)
        XCTAssertEqual(albums["x.png"]?.filter { $0.hasPrefix("a") }.count, 1, "the burst once: \(albums)")
        XCTAssertEqual(albums["y.png"]?.count, 2)
        XCTAssertEqual(albums["y.png"]?.filter { $0.hasPrefix("b") }.count, 1, "the burst once: \(albums)")
        // Days: the second burst and greenmeadow a day later.
        for name in ["b0", "b1", "b2", "greenmeadow"] {
            try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal+=0:0:1 0:0:0",
                                           path("in/\(name).jpg")])
        }
        let days = try collage(["--group-by", "day", "--pick", "--max", "2", "--size", "240x160", "in",
                                "-o", "{group}.png", "--json"])
        XCTAssertEqual(days.status, 0, days.summary)
        let byDay = images(days)
        XCTAssertEqual(byDay.keys.sorted(), ["2026-08-14.png", "2026-08-15.png"])
        XCTAssertEqual(byDay["2026-08-14.png"]?.filter { $0.hasPrefix("a") }.count, 1, "\(byDay)")
        XCTAssertEqual(byDay["2026-08-14.png"]?.count, 2)
        XCTAssertEqual(byDay["2026-08-15.png"]?.filter { $0.hasPrefix("b") }.count, 1, "\(byDay)")
        XCTAssertEqual(byDay["2026-08-15.png"]?.count, 2)
    }

    func testWhatItCannotBeGivenWith() throws {
        makeFolder("in")
        for (extra, words) in [(["--sort", "name"], "--pick cannot be used with --sort name"),
                               (["--reverse"], "--pick cannot be used with --reverse"),
                               (["--frames", "4"], "--pick cannot be used with --frames")] {
            let result = try collage(["--pick", "in"] + extra)
            XCTAssertEqual(result.status, 64, result.summary)
            XCTAssertTrue(result.stderrText.contains(words), result.stderrText)
        }
        XCTAssertEqual(try collage(["--pick", "--sort", "taken", "in"]).status == 64, false, "time order is the pick's own")
    }
}
