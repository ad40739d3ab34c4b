import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Colour, time and faces": `--sort name|taken|mtime` and
/// `--reverse`. Taken is EXIF DateTimeOriginal with OffsetTimeOriginal,
/// else a date and time in the file's name, else the modification time;
/// ties keep the scan order; the cap applies after sorting.
final class TimeSortTests: CLITestCase {
    private let byTaken = ["pics/z.jpg", "pics/b.jpg", "pics/IMG_20260814_140000.jpg", "pics/PXL_20260814_143000123.jpg",
                           "pics/a.jpg"]
    private let colourByName: [String: RGB] = ["pics/a.jpg": palette[0], "pics/b.jpg": palette[1],
                                               "pics/IMG_20260814_140000.jpg": palette[2],
                                               "pics/PXL_20260814_143000123.jpg": palette[3], "pics/z.jpg": palette[4]]

    private func placed(_ arguments: [String]) throws -> [String] {
        let result = try collageUTC(arguments + ["--json", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let images = writtenImages(result)["out.png"] ?? []
        // The pixels agree with the event: each tile shows its photo's colour.
        let colours = images.compactMap { colourByName[$0] }
        if let picture = decoded("out.png"), !images.isEmpty, colours.count == images.count {
            assertTiles(picture, colours)
        }
        return images
    }

    /// Two photos taken at 15:30:12 by their clocks, one at +02:00: it was
    /// taken two hours before the other, and goes first.
    func testTakenOrdersByExifWithItsOffsetThenTheNameThenTheModificationTime() throws {
        try makeDatedPhotos()
        XCTAssertEqual(try placed(["pics", "--sort", "taken", "--max", "10"]), byTaken)
        XCTAssertEqual(try placed(["pics", "--sort", "taken", "--reverse", "--max", "10"]), byTaken.reversed())
    }

    func testModificationTimeAndItsReverse() throws {
        try makeDatedPhotos()
        let byTime = ["pics/a.jpg", "pics/b.jpg", "pics/IMG_20260814_140000.jpg", "pics/PXL_20260814_143000123.jpg",
                      "pics/z.jpg"]
        XCTAssertEqual(try placed(["pics", "--sort", "mtime", "--max", "10"]), byTime)
        XCTAssertEqual(try placed(["pics", "--sort", "mtime", "--reverse", "--max", "10"]), byTime.reversed())
        // Name: the scan order, and --reverse turns it round.
        let byName = ["pics/IMG_20260814_140000.jpg", "pics/PXL_20260814_143000123.jpg", "pics/a.jpg", "pics/b.jpg",
                      "pics/z.jpg"]
        XCTAssertEqual(try placed(["pics", "--max", "10"]), byName)
        XCTAssertEqual(try placed(["pics", "--sort", "name", "--reverse", "--max", "10"]), byName.reversed())
    }

    /// `--sort name` is the default, byte for byte; photos with the same
    /// time keep the scan order.
    func testNameIsTheDefaultAndTiesKeepTheScanOrder() throws {
        makeFolder("pics")
        for (index, name) in ["c", "a", "d", "b"].enumerated() {
            writePhoto("pics/\(name).jpg", palette[index], modified: name == "d" ? "2026-08-15 00:00:00 UTC" : "2026-08-14 00:00:00 UTC")
        }
        assertSuccess(try collageUTC(["pics", "-o", "default.png"]), stdout: "default.png\n")
        assertSuccess(try collageUTC(["pics", "--sort", "name", "-o", "name.png"]), stdout: "name.png\n")
        assertSameBytes(contents("name.png"), contents("default.png") ?? [], "--sort name is the default")
        XCTAssertEqual(try placed(["pics", "--sort", "mtime"]), ["pics/a.jpg", "pics/b.jpg", "pics/c.jpg", "pics/d.jpg"])
        XCTAssertEqual(try placed(["pics", "--sort", "taken", "--reverse"]), ["pics/d.jpg", "pics/c.jpg", "pics/b.jpg", "pics/a.jpg"])
    }

    /// With taken, every header is read and the cap takes the newest; the
    /// notice counts what was left out exactly.
    func testTheCapAppliesAfterSorting() throws {
        try makeDatedPhotos()
        let result = try collageUTC(["pics", "--sort", "taken", "--reverse", "--max", "2", "--json", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(writtenImages(result)["out.png"], ["pics/a.jpg", "pics/PXL_20260814_143000123.jpg"])
        XCTAssertEqual(events(all, "accepted").count, 5, "every header was read")
        XCTAssertEqual(events(all, "placed").count, 2)
        let notices = events(all, "notice").compactMap { $0["message"] as? String }.filter { $0.contains("left out") }
        XCTAssertEqual(notices.count, 1, "\(notices)")
        XCTAssertTrue(notices.first?.contains("at least 3 more") == true, "\(notices)")
    }

    /// Each file-name pattern orders photos without EXIF whose modification
    /// times say the opposite.
    func testFileNamePatternsOrderPhotosWithoutExif() throws {
        makeFolder("pics")
        let names = ["Screenshot 2026-08-14 at 09.00.00.png", "Screen Shot 2026-08-14 at 9.30.00 AM.png",
                     "2026-08-14 10.00.00.jpg", "IMG_20260814_103000.jpg", "PXL_20260814_110000001.jpg",
                     "Screenshot from 2026-08-14 11-30-00.png", "Screenshot_20260814-120000.png",
                     "WhatsApp Image 2026-08-14 at 12.30.00.jpeg", "photo_2026-08-14_13-00-00.jpg"]
        for (index, name) in names.enumerated() {
            write(image(palette[index % palette.count], suffix: name.hasSuffix(".png") ? ".png" : ".jpg"), to: "pics/\(name)")
            touch("pics/\(name)", "2026-09-\(String(format: "%02d", 20 - index)) 00:00:00 UTC")
        }
        let result = try collageUTC(["pics", "--sort", "taken", "--sheets", "--max", "20", "--json", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(writtenImages(result)["out-0001.png"], names.map { "pics/" + $0 })
    }

    /// Dates that are not dates (month 13, year 0), a date in 2099 and a
    /// name that only looks like a date: each falls back to the next
    /// source, and every photo is placed.
    func testImpossibleAndFutureDatesFallBackAndLoseNoPhoto() throws {
        try requireExifTool()
        makeFolder("pics")
        writePhoto("pics/IMG_20260814_100000.jpg", palette[0], exif: ["DateTimeOriginal": "2026:13:14 10:00:00"],
                   modified: "2026-08-20 00:00:00 UTC")
        writePhoto("pics/a.jpg", palette[1], exif: ["DateTimeOriginal": "0000:01:01 10:00:00"], modified: "2026-08-13 00:00:00 UTC")
        writePhoto("pics/b.jpg", palette[2], exif: ["DateTimeOriginal": "2099:01:01 10:00:00"], modified: "2026-08-15 00:00:00 UTC")
        writePhoto("pics/IMG_20261399_999999.jpg", palette[3], modified: "2026-08-12 00:00:00 UTC")
        let result = try collageUTC(["pics", "--sort", "taken", "--json", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(writtenImages(result)["out.png"],
                       ["pics/IMG_20261399_999999.jpg", "pics/a.jpg", "pics/IMG_20260814_100000.jpg", "pics/b.jpg"])
        let days = try collageUTC(["pics", "--group-by", "day", "--dry-run"])
        XCTAssertEqual(days.status, 0, days.summary)
        XCTAssertEqual(days.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t")[0]) },
                       ["collage-2026-08-12.jpg", "collage-2026-08-13.jpg", "collage-2026-08-14.jpg", "collage-2026-08-15.jpg"])
    }

    /// Shards of `--sheets --sort taken` agree on the cut: together they
    /// write one run's sheets, byte for byte, each sheet once.
    func testShardsOfSortedSheetsWriteWhatOneRunWrites() throws {
        try makeDatedPhotos()
        makeFolder("one")
        makeFolder("parts")
        let one = try collageUTC(["pics", "--sort", "taken", "--sheets", "--max", "2", "-o", "one/s.png"])
        XCTAssertEqual(one.stdoutText, "one/s-0001.png\none/s-0002.png\none/s-0003.png\n", one.summary)
        var written: [String] = []
        for index in 0..<2 {
            let part = try collageUTC(["pics", "--sort", "taken", "--sheets", "--max", "2", "--shard", "\(index)/2",
                                       "-o", "parts/s.png"])
            XCTAssertEqual(part.status, 0, part.summary)
            written += part.stdoutText.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(written.sorted(), ["parts/s-0001.png", "parts/s-0002.png", "parts/s-0003.png"])
        for name in ["s-0001.png", "s-0002.png", "s-0003.png"] {
            assertSameBytes(contents("parts/\(name)"), contents("one/\(name)") ?? [], name)
        }
        if let first = decoded("one/s-0001.png") { assertTiles(first, [palette[4], palette[1]]) }
    }

    /// A plan keeps the order: its shards write the sorted run's sheets.
    func testAPlanKeepsTheOrder() throws {
        try makeDatedPhotos()
        makeFolder("one")
        makeFolder("planned")
        XCTAssertEqual(try collageUTC(["pics", "--sort", "taken", "--reverse", "--sheets", "--max", "2", "-o", "one/s.png"]).status, 0)
        let plan = try collageUTC(["pics", "--plan", "job.plan", "--sort", "taken", "--reverse", "--sheets", "--max", "2",
                                   "-o", "planned/s.png"])
        XCTAssertEqual(plan.status, 0, plan.summary)
        for index in 0..<2 {
            XCTAssertEqual(try collageUTC(["--from-plan", "job.plan", "--shard", "\(index)/2"]).status, 0)
        }
        for name in ["s-0001.png", "s-0002.png", "s-0003.png"] {
            assertSameBytes(contents("planned/\(name)"), contents("one/\(name)") ?? [], name)
        }
    }

    func testBadValuesAreUsageErrors() throws {
        makeFolder("pics")
        writeImage(palette[0], to: "pics/a.png")
        let cases: [([String], [String])] = [
            (["--sort", "size"], ["--sort", "size"]),
            (["--group-by", "week"], ["--group-by", "week"]),
            (["--group-by", "gap=0m"], ["gap=0m"]), (["--group-by", "gap=3x"], ["gap=3x"]), (["--group-by", "gap=h"], ["gap=h"]),
            (["--group-by", "gap=99999999999d"], ["gap="]), (["--group-by", "gap=-3h"], ["gap=-3h"]),
            (["--group-by", "day", "--per-folder", "-o", "{dir}.jpg"], ["--per-folder"]),
            (["--label", "{group}"], ["{group}", "--group-by"]), (["--title", "x {group}"], ["{group}", "--group-by"]),
            (["-o", "{group}.jpg"], ["{group}", "--group-by"]),
            (["--diff", "pics", "--sort", "taken"], ["--sort"]),
        ]
        for (arguments, mentions) in cases {
            _ = assertFailure(try collage(["pics"] + arguments), status: 64, mentions: mentions)
        }
        XCTAssertEqual(listingText(), ["pics"], "nothing was written")
    }
}
