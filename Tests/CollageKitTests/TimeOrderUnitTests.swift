import FileFacts
import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// The parts of `--sort` and `--group-by` that need no image: dates in file
/// names, EXIF's date fields, durations, and the cut into named groups.
final class TimeOrderUnitTests: XCTestCase {
    private func date(_ name: String) -> String? { NameDate.parse(Array(name.utf8))?.description }

    /// Each pattern docs/order-and-groups.md lists, as cameras, phones and tools write it.
    func testFileNamePatterns() {
        let cases: [(String, String)] = [
            ("IMG_20260814_153012.jpg", "2026-08-14T15:30:12"),
            ("VID_20260814_153012.mp4", "2026-08-14T15:30:12"),
            ("20260814_153012.jpg", "2026-08-14T15:30:12"),
            ("PXL_20260814_153012345.jpg", "2026-08-14T15:30:12.345"),
            ("PXL_20260814_153012345.MP.jpg", "2026-08-14T15:30:12.345"),
            ("IMG_20260814_153012_HDR.jpg", "2026-08-14T15:30:12"),
            ("Screenshot_20260814-153012.png", "2026-08-14T15:30:12"),
            ("2026-08-14 15.30.12.jpg", "2026-08-14T15:30:12"),
            ("2026-08-14 15.30.12-1.jpg", "2026-08-14T15:30:12"),
            ("Screenshot 2026-08-14 at 15.30.12.png", "2026-08-14T15:30:12"),
            ("Screen Shot 2026-08-14 at 3.30.12 PM.png", "2026-08-14T15:30:12"),
            ("Screenshot 2026-08-14 at 3.30.12\u{202F}PM.png", "2026-08-14T15:30:12"),
            ("Screen Shot 2026-08-14 at 12.05.00 AM.png", "2026-08-14T00:05:00"),
            ("Screenshot from 2026-08-14 15-30-12.png", "2026-08-14T15:30:12"),
            ("Screenshot 2026-08-14 153012.png", "2026-08-14T15:30:12"),
            ("WhatsApp Image 2026-08-14 at 15.30.12.jpeg", "2026-08-14T15:30:12"),
            ("photo_2026-08-14_15-30-12.jpg", "2026-08-14T15:30:12"),
            ("2026-08-14T15:30:12.jpg", "2026-08-14T15:30:12"),
            ("2026_08_14_15_30_12.jpg", "2026-08-14T15:30:12"),
            ("signal-2026-08-14-153012.jpg", "2026-08-14T15:30:12"),
            ("2026-02-29 10.00.00.jpg", "2026-02-29T10:00:00"),
        ]
        for (name, expected) in cases where name != "2026-02-29 10.00.00.jpg" {
            XCTAssertEqual(date(name), expected, name)
        }
        XCTAssertEqual(date("2024-02-29 10.00.00.jpg"), "2024-02-29T10:00:00", "a leap day")
    }

    /// Names that only look like dates are not dates: the run falls back to
    /// the file's modification time, and no photo is lost.
    func testNamesThatOnlyLookLikeDates() {
        for name in ["IMG_0001.jpg", "IMG_20261314_153012.jpg", "IMG_20260832_153012.jpg", "IMG_20260814_253012.jpg",
                     "IMG_20260814_156012.jpg", "IMG_00000814_153012.jpg", "2026-02-29 10.00.00.jpg",
                     "IMG_120260814_153012.jpg", "IMG_20260814_1530123.jpg", "2026-08-14.jpg", "2026-08-14 15.30.jpg",
                     "2026-08_14 15.30.12.jpg", "2026-08-14 15.30-12.jpg", "Screen Shot 2026-08-14 at 13.30.12 PM.png",
                     "1234567890123456.jpg", "DSC_2026.jpg", ""] {
            XCTAssertNil(date(name), name)
        }
        // A later run that is a date is found after one that is not.
        XCTAssertEqual(date("20261399_000000 then 2026-08-14 15.30.12.jpg"), "2026-08-14T15:30:12")
    }

    func testExifDateTimeWithSubSecondsAndOffset() {
        let taken = ExifDateTime.parse(Array("2026:08:14 15:30:12".utf8), subSeconds: Array("5".utf8),
                                       offset: Array("-05:30".utf8))
        XCTAssertEqual(taken?.description, "2026-08-14T15:30:12.500-05:30")
        XCTAssertEqual(taken?.instantMilliseconds, LocalDateTime(year: 2026, month: 8, day: 14, hour: 21, minute: 0,
                                                                 second: 12, millisecond: 500, offsetMinutes: 0)?.instantMilliseconds)
        for bad in ["0000:08:14 15:30:12", "2026:13:14 15:30:12", "2026:02:30 15:30:12", "    :  :     :  :  ",
                    "2026:08:14 24:00:00", "2026-08-14 15:30:12", "2026:08:14"] {
            XCTAssertNil(ExifDateTime.parse(Array(bad.utf8)), bad)
        }
        XCTAssertNil(ExifDateTime.parse(Array("2026:08:14 15:30:12".utf8), offset: Array("+25:00".utf8))?.offsetMinutes,
                     "an offset that is not one is left out, the date kept")
    }

    func testDurationsParseAndRoundTrip() throws {
        let cases: [(String, Int, String)] = [("90m", 5400, "1h30m"), ("3h", 10_800, "3h"), ("2d", 172_800, "2d"),
                                              ("1h30m", 5400, "1h30m"), ("45s", 45, "45s"), ("1d1s", 86_401, "1d1s")]
        for (text, seconds, written) in cases {
            let duration = try GapDuration.parse(text).get()
            XCTAssertEqual(duration.seconds, seconds, text)
            XCTAssertEqual(duration.description, written, text)
            XCTAssertEqual(try GapDuration.parse(written).get(), duration, written)
        }
        for bad in ["", "90", "m", "0m", "-3h", "3 h", "3H", "1.5h", "3w", "h3", "99999999999d", "10001d", "３h"] {
            guard case .failure(let error) = GapDuration.parse(bad) else { return XCTFail("'\(bad)' parsed") }
            XCTAssertTrue(error.description.hasPrefix("--group-by gap="), error.description)
        }
        XCTAssertEqual(try GroupBy.parse("gap=3h").get(), .gap(GapDuration(seconds: 10_800)!))
        XCTAssertEqual(try GroupBy.parse("day").get(), .day)
        for bad in ["days", "gap", "gap=", "Day", "week"] {
            if case .success = GroupBy.parse(bad) { XCTFail("--group-by \(bad) parsed") }
        }
    }

    private func dated(_ name: String, _ taken: LocalDateTime, scan: Int) -> DatedImage {
        let stamp = FileStamp(size: 1, modified: 0)
        let header = ImageHeader(width: 4, height: 3, orientation: 1, format: "jpeg")
        return DatedImage(image: ChosenImage(path: PathName(name), header: header, stamp: stamp, partners: []),
                          scanIndex: scan, taken: TakenTime(local: taken, source: .metadata))
    }

    private func at(_ day: Int, _ hour: Int, _ minute: Int = 0, offset: Int? = 0) -> LocalDateTime {
        LocalDateTime(year: 2026, month: 8, day: day, hour: hour, minute: minute, offsetMinutes: offset)!
    }

    /// Days are the photos' own local days: a photo at 23:30 in +02:00 and
    /// one at 00:30 the next day in -05:00 are on two days though only
    /// hours apart, and a day's group holds its photos from every zone.
    func testGroupsByDayMonthYearAndGapWithTheirNames() {
        let images = [dated("a", at(14, 23, 30, offset: 120), scan: 0), dated("b", at(15, 0, 30, offset: -300), scan: 1),
                      dated("c", at(14, 9), scan: 2), dated("d", at(16, 9), scan: 3),
                      dated("e", LocalDateTime(year: 2027, month: 1, day: 2, hour: 8, offsetMinutes: 0)!, scan: 4)]
        func names(_ groups: [TakenGroup]) -> [String] { groups.map { "\($0.name):" + $0.images.map(\.image.path.description).joined() } }
        XCTAssertEqual(names(TakenGroups.cut(images, by: .day, order: .taken, reverse: false)),
                       ["2026-08-14:ca", "2026-08-15:b", "2026-08-16:d", "2027-01-02:e"])
        XCTAssertEqual(names(TakenGroups.cut(images, by: .month, order: .taken, reverse: false)), ["2026-08:cabd", "2027-01:e"])
        XCTAssertEqual(names(TakenGroups.cut(images, by: .year, order: .taken, reverse: true)), ["2027:e", "2026:dbac"])
        XCTAssertEqual(names(TakenGroups.cut(images, by: .month, order: .name, reverse: false)), ["2026-08:abcd", "2027-01:e"])
        // a at 21:30Z, b at 05:30Z next day: 8 hours apart; c 12:30 before a.
        XCTAssertEqual(names(TakenGroups.cut(images, by: .gap(GapDuration(seconds: 8 * 3600)!), order: .taken, reverse: false)),
                       ["2026-08-14T09.00:c", "2026-08-14T23.30:ab", "2026-08-16T09.00:d", "2027-01-02T08.00:e"])
        // Two events starting in the same local minute in different zones get distinct names.
        let twins = [dated("x", at(14, 10, offset: 0), scan: 0), dated("y", at(14, 10, offset: -600), scan: 1)]
        XCTAssertEqual(names(TakenGroups.cut(twins, by: .gap(GapDuration(seconds: 60)!), order: .taken, reverse: false)),
                       ["2026-08-14T10.00:x", "2026-08-14T10.00-2:y"])
    }

    /// Ties keep the scan order, reversed as a whole by `--reverse`.
    func testTiesKeepTheScanOrder() {
        let images = [dated("b", at(14, 10), scan: 0), dated("a", at(14, 9), scan: 1), dated("c", at(14, 10), scan: 2)]
        XCTAssertEqual(images.sorted(by: .taken, reverse: false).map(\.image.path.description), ["a", "b", "c"])
        XCTAssertEqual(images.sorted(by: .taken, reverse: true).map(\.image.path.description), ["c", "b", "a"])
        XCTAssertEqual(images.sorted(by: .name, reverse: true).map(\.image.path.description), ["c", "a", "b"])
    }

    /// A date more than a day ahead of now is a wrong clock: the name is
    /// asked, then the modification time.
    func testDatesInTheFutureFallBack() {
        let header = { (taken: LocalDateTime?) -> ImageHeader in
            var header = ImageHeader(width: 4, height: 3, orientation: 1, format: "jpeg")
            header.takenAt = taken
            return header
        }
        let stamp = FileStamp(size: 1, modified: 1_786_000_000 * 1_000_000_000)
        let now = at(20, 12).instantMilliseconds
        let future = LocalDateTime(year: 2099, month: 1, day: 1, offsetMinutes: 0)
        let fromName = TakenTime(header: header(future), path: PathName("IMG_20260814_153012.jpg"), stamp: stamp, now: now)
        XCTAssertEqual(fromName.source, .name)
        XCTAssertEqual(fromName.local.description, "2026-08-14T15:30:12")
        let fromTime = TakenTime(header: header(future), path: PathName("IMG_20990814_153012.jpg"), stamp: stamp, now: now)
        XCTAssertEqual(fromTime.source, .mtime)
        XCTAssertEqual(fromTime.instant, 1_786_000_000_000)
        XCTAssertEqual(TakenTime(header: header(at(14, 9)), path: PathName("x.jpg"), stamp: stamp, now: now).source, .metadata)
    }
}
