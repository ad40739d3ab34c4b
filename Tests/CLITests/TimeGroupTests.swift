import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Colour, time and faces": `--group-by day|month|year|gap`:
/// one collage (or set of sheets) per group, named by the group, with
/// `--sheets`, `--shard`, `--skip-unchanged`, `--dry-run`, `--json`, `--html`.
final class TimeGroupTests: CLITestCase {
    /// Seven photos over three days of August, a day of September and one
    /// of 2026; 13 and 14 August's photos are 20 hours apart.
    private func makeDays() throws {
        try requireExifTool()
        makeFolder("pics")
        let taken: [(String, String)] = [("p1", "2025:08:13 09:00:00"), ("p2", "2025:08:13 11:00:00"),
                                         ("p3", "2025:08:14 07:00:00"), ("p4", "2025:08:14 08:00:00"),
                                         ("p5", "2025:08:14 23:30:00"), ("p6", "2025:09:01 12:00:00"),
                                         ("p7", "2026:01:02 08:00:00")]
        // Names in the reverse order of the dates: the groups follow the dates.
        for (index, (name, date)) in taken.enumerated() {
            writePhoto("pics/\(9 - index)-\(name).jpg", palette[index % palette.count], exif: ["DateTimeOriginal": date])
        }
    }

    private func p(_ numbers: Int...) -> [String] { numbers.map { "pics/\(10 - $0)-p\($0).jpg" } }

    func testDayMonthYearAndGapGroupsAndTheirNames() throws {
        try makeDays()
        makeFolder("out")
        let days = try collageUTC(["pics", "--group-by", "day", "--json", "-o", "out/{group}.png"])
        XCTAssertEqual(days.status, 0, days.summary)
        XCTAssertEqual(writtenImages(days), ["out/2025-08-13.png": p(1, 2), "out/2025-08-14.png": p(3, 4, 5),
                                             "out/2025-09-01.png": p(6), "out/2026-01-02.png": p(7)])
        let all = jsonEvents(days)
        XCTAssertEqual(events(all, "group").map { $0["group"] as? String ?? "" },
                       ["2025-08-13", "2025-08-14", "2025-09-01", "2026-01-02"])
        XCTAssertEqual(events(all, "group").map { $0["images"] as? Int ?? 0 }, [2, 3, 1, 1])
        XCTAssertEqual(events(all, "written").map { $0["group"] as? String ?? "" },
                       ["2025-08-13", "2025-08-14", "2025-09-01", "2026-01-02"])
        XCTAssertEqual(all.last?["written"] as? Int, 4)
        for event in all { XCTAssertEqual(EventSchema.problems(event), [], EventSchema.text(event)) }
        XCTAssertEqual(all.last?["used"] as? Int, 7)
        // The pixels: 14 August holds p3, p4, p5 in the order taken.
        if let picture = decoded("out/2025-08-14.png") { assertTiles(picture, [palette[2], palette[3], palette[4]]) }

        let months = try collageUTC(["pics", "--group-by", "month", "--json", "-o", "m.png"])
        XCTAssertEqual(writtenImages(months), ["m-2025-08.png": p(1, 2, 3, 4, 5), "m-2025-09.png": p(6), "m-2026-01.png": p(7)])
        let years = try collageUTC(["pics", "--group-by", "year", "--reverse", "--json", "-o", "y.png"])
        XCTAssertEqual(writtenImages(years), ["y-2025.png": p(6, 5, 4, 3, 2, 1), "y-2026.png": p(7)])
        XCTAssertEqual(events(jsonEvents(years), "written").compactMap { $0["output"] as? String }, ["y-2026.png", "y-2025.png"],
                       "newest group first")
        // A pause longer than 16 hours starts an event: 11:00 to 07:00 next
        // day is 20 hours; 08:00 to 23:30 is 15 and a half.
        let events = try collageUTC(["pics", "--group-by", "gap=16h", "--json", "-o", "e.png"])
        XCTAssertEqual(writtenImages(events), ["e-2025-08-13T09.00.png": p(1, 2), "e-2025-08-14T07.00.png": p(3, 4, 5),
                                               "e-2025-09-01T12.00.png": p(6), "e-2026-01-02T08.00.png": p(7)])
        let short = try collageUTC(["pics", "--group-by", "gap=90m", "--dry-run"])
        XCTAssertEqual(Set(short.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }),
                       ["collage-2025-08-13T09.00.jpg", "collage-2025-08-13T11.00.jpg", "collage-2025-08-14T07.00.jpg",
                        "collage-2025-08-14T23.30.jpg", "collage-2025-09-01T12.00.jpg", "collage-2026-01-02T08.00.jpg"])
    }

    /// With --sheets, each group's sheets, -GROUP before -0001; captions and
    /// titles say the group.
    func testSheetsPerGroupAndGroupInCaptions() throws {
        try makeDays()
        let result = try collageUTC(["pics", "--group-by", "month", "--sheets", "--max", "2", "--label", "{group} {name}",
                                     "--title", "{group} sheet {sheet}", "--dry-run", "--json", "-o", "s.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        let planned = events(jsonEvents(result), "planned")
        XCTAssertEqual(planned.compactMap { $0["output"] as? String },
                       ["s-2025-08-0001.jpg", "s-2025-08-0002.jpg", "s-2025-08-0003.jpg", "s-2025-09-0001.jpg", "s-2026-01-0001.jpg"])
        XCTAssertEqual(planned.first?["labels"] as? [String], ["2025-08 9-p1.jpg", "2025-08 8-p2.jpg"])
        let out = try collageUTC(["pics", "--group-by", "month", "--sheets", "--max", "2", "--label", "{group}", "--title", "{group}",
                                  "-o", "sheets/{group}/{n}.png"])
        XCTAssertEqual(out.status, 73, "the folders of {group} are not made: \(out.summary)")
        makeFolder("sheets")
        for month in ["2025-08", "2025-09", "2026-01"] { makeFolder("sheets/\(month)") }
        let written = try collageUTC(["pics", "--group-by", "month", "--sheets", "--max", "2", "-o", "sheets/{group}/{n}.png"])
        XCTAssertEqual(written.stdoutText, ["sheets/2025-08/0001.png", "sheets/2025-08/0002.png", "sheets/2025-08/0003.png",
                                            "sheets/2025-09/0001.png", "sheets/2026-01/0001.png"].map { $0 + "\n" }.joined())
    }

    /// Shards share the groups out by the FNV-1a hash of their names: together
    /// they write exactly one run's files, byte for byte, none twice.
    func testShardsTogetherWriteWhatOneRunWrites() throws {
        try makeDays()
        makeFolder("one")
        makeFolder("parts")
        assertSuccessStatus(try collageUTC(["pics", "--group-by", "day", "--sheets", "--max", "2", "-o", "one/d.png"]))
        var seen: [String: Int] = [:]
        for index in 0..<3 {
            let shard = try collageUTC(["pics", "--group-by", "day", "--sheets", "--max", "2", "--shard", "\(index)/3",
                                        "--json", "-o", "parts/d.png"])
            XCTAssertEqual(shard.status, 0, shard.summary)
            for (output, _) in writtenImages(shard) { seen[output, default: 0] += 1 }
            XCTAssertEqual(jsonEvents(shard).last?["shard"] as? String, "\(index)/3")
            for group in events(jsonEvents(shard), "group").compactMap({ $0["group"] as? String }) {
                XCTAssertEqual(Int(fnv1a(Array(group.utf8)) % 3), index, "\(group) is shard \(index)'s")
            }
        }
        XCTAssertEqual(Set(seen.values), [1], "no file is written by two shards: \(seen)")
        XCTAssertEqual(listingText("parts").filter { !$0.hasPrefix(".") }, listingText("one").filter { !$0.hasPrefix(".") })
        for name in listingText("one") where !name.hasPrefix(".") {
            assertSameBytes(contents("parts/\(name)"), contents("one/\(name)") ?? [], name)
        }
    }

    /// A plan of the groups, run by two shards from it: one run's files,
    /// byte for byte, each group's events named.
    func testAPlanOfTheGroupsRunByShards() throws {
        try makeDays()
        makeFolder("one")
        makeFolder("planned")
        XCTAssertEqual(try collageUTC(["pics", "--group-by", "day", "--sheets", "--max", "2", "--label", "{group}",
                                       "-o", "one/d.png"]).status, 0)
        let plan = try collageUTC(["pics", "--plan", "job.plan", "--group-by", "day", "--sheets", "--max", "2",
                                   "--label", "{group}", "-o", "planned/d.png"])
        XCTAssertEqual(plan.status, 0, plan.summary)
        var groups: [String] = []
        for index in 0..<2 {
            let part = try collageUTC(["--from-plan", "job.plan", "--shard", "\(index)/2", "--json"])
            XCTAssertEqual(part.status, 0, part.summary)
            groups += events(jsonEvents(part), "group").compactMap { $0["group"] as? String }
            for written in events(jsonEvents(part), "written") {
                XCTAssertTrue((written["output"] as? String ?? "").contains(written["group"] as? String ?? "?"), "\(written)")
            }
        }
        XCTAssertEqual(groups.sorted(), ["2025-08-13", "2025-08-14", "2025-09-01", "2026-01-02"])
        XCTAssertEqual(listingText("planned").filter { !$0.hasPrefix(".") }, listingText("one").filter { !$0.hasPrefix(".") })
        for name in listingText("one") where !name.hasPrefix(".") {
            assertSameBytes(contents("planned/\(name)"), contents("one/\(name)") ?? [], name)
        }
    }

    /// Each group's output keeps its own state: a changed photo redoes its
    /// day alone; a new photo of another day makes that day's collage.
    func testSkipUnchangedRedoesOnlyTheGroupThatChanged() throws {
        try makeDays()
        let arguments = ["pics", "--group-by", "day", "--skip-unchanged", "--json", "-o", "d.png"]
        XCTAssertEqual(events(jsonEvents(try collageUTC(arguments)), "written").count, 4)
        let again = jsonEvents(try collageUTC(arguments))
        XCTAssertEqual(events(again, "written").count, 0)
        XCTAssertEqual(events(again, "unchanged").count, 4)
        writePhoto("pics/9-p1.jpg", palette[5], exif: ["DateTimeOriginal": "2025:08:13 09:00:00"])
        writePhoto("pics/0-new.jpg", palette[6], exif: ["DateTimeOriginal": "2025:10:10 10:00:00"])
        let third = try collageUTC(arguments)
        XCTAssertEqual(third.status, 0, third.summary)
        XCTAssertEqual(Set(events(jsonEvents(third), "written").compactMap { $0["output"] as? String }),
                       ["d-2025-08-13.png", "d-2025-10-10.png"])
        XCTAssertEqual(events(jsonEvents(third), "unchanged").count, 3)
    }

    /// --dry-run prints OUTPUT<TAB>IMAGE for each group and writes nothing;
    /// --html links every group's collage.
    func testDryRunAndPage() throws {
        try makeDays()
        let dry = try collageUTC(["pics", "--group-by", "year", "--dry-run", "-o", "y.jpg"])
        XCTAssertEqual(dry.status, 0, dry.summary)
        XCTAssertEqual(dry.stdoutText, (p(1, 2, 3, 4, 5, 6).map { "y-2025.jpg\t\($0)\n" } + ["y-2026.jpg\t\(p(7)[0])\n"]).joined())
        XCTAssertEqual(listingText(), ["pics"], "a dry run writes nothing")
        let page = try collageUTC(["pics", "--group-by", "year", "--html", "index.html", "-o", "y.jpg"])
        XCTAssertEqual(page.status, 0, page.summary)
        let html = String(decoding: contents("index.html") ?? [], as: UTF8.self)
        XCTAssertTrue(html.contains("y-2025.jpg") && html.contains("y-2026.jpg"), html)
        XCTAssertEqual(html.components(separatedBy: "<area ").count - 1, 7, "one area per photo")
    }

    /// Nothing eligible in any group: 66, and the line says why, as one run's does.
    func testNothingEligibleSaysWhy() throws {
        makeFolder("pics")
        writeImage(palette[0], to: "pics/a.png", width: 40, height: 60)
        let message = assertFailure(try collageUTC(["pics", "--group-by", "day", "-o", "d.png"]), status: 66,
                                    mentions: ["no eligible image", "1 rejected", "--allow-portrait"])
        XCTAssertFalse(message.isEmpty)
        XCTAssertEqual(listingText(), ["pics"])
    }

    private func assertSuccessStatus(_ result: ProcessResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
    }

    private func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
