import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// `--diff` of pages too tall to hold as a pair: compared exactly, within
/// the 160 MiB every run promises (VmHWM of the child, never a clock); a
/// pair whose temporary file cannot be written is that pair's `failed`
/// line, and the rest of the run goes on.
final class DiffTallPageTests: CLITestCase {
    /// A page of "text": blocks of 20 rows, 14 of dots and 6 white; a
    /// 200x30 red box at (500, `box`) when given.
    private func page(width: Int = 1280, height: Int, box: Int? = nil) throws -> [UInt8] {
        let pixels = PixelBuffer(width: width, height: height) { x, y in
            if let box, x >= 500, x < 700, y >= box, y < box + 30 { return RGB(red: 220, green: 20, blue: 20) }
            guard y % 20 < 14, x >= 40, x < width - 40 else { return .white }
            var hash = UInt32(truncatingIfNeeded: (x / 3) &* 2_654_435_761) ^ UInt32(truncatingIfNeeded: y &* 40503)
            hash = (hash ^ (hash >> 15)) &* 2_246_822_519
            hash ^= hash >> 13
            return hash % 5 == 0 ? RGB(red: 30, green: 30, blue: UInt8(40 + y % 7)) : .white
        }
        return try Encoder.encode(pixels, suffix: ".png", orientation: nil).bytes
    }

    /// 1280x20000 pages (77 MB each decoded), a box changed 200 rows from
    /// the bottom: `changed`, at the box, the run under 160 MiB at its peak.
    func testATallPairIsComparedWithinTheMemoryEveryRunPromises() throws {
        makeFolder("base")
        makeFolder("shots")
        write(try page(height: 20000), to: "base/page.png")
        write(try page(height: 20000, box: 20000 - 230), to: "shots/page.png")
        let run = try measuredCollage(["--diff", "base/page.png", "shots/page.png", "--json", "-o", "d.png"],
                                      timeout: 300)
        XCTAssertEqual(run.result.status, 1, run.result.summary)
        let compared = try XCTUnwrap(events(jsonEvents(run.result), "compared").first, run.result.summary)
        XCTAssertEqual(compared["status"] as? String, "changed")
        XCTAssertGreaterThan(compared["pixels"] as? Int ?? 0, 5000)
        XCTAssertLessThanOrEqual(compared["pixels"] as? Int ?? 0, 6000)
        XCTAssertNotNil(decoded("d.png"), "the sheet is written")
        XCTAssertLessThan(run.maxRSSMegabytes, 160, "the pair is kept on disc, not in memory")
        print("1280x20000 pair: peak \(Int(run.maxRSSMegabytes)) MiB")
    }

    /// Six pairs of 1280x8000-8500 pages (each pair a heavy decode, every
    /// one of another size), with sheets and the review page: their
    /// pictures are not kept in the allocator for reuse (no two are the same
    /// size), so the run stays under 160 MiB at its peak.
    func testHeavyPairsOfManySizesStayWithinTheMemoryEveryRunPromises() throws {
        makeFolder("base")
        makeFolder("shots")
        for index in 0..<6 {
            let height = 8000 + 100 * index
            write(try page(height: height), to: "base/page\(index).png")
            write(try page(height: height, box: height - 500), to: "shots/page\(index).png")
        }
        let run = try measuredCollage(["--diff", "base", "shots", "--sheets", "--max", "4", "--html", "review.html",
                                       "--json", "-o", "d-{n}.jpg"], timeout: 300)
        XCTAssertEqual(run.result.status, 1, run.result.summary)
        let compared = events(jsonEvents(run.result), "compared")
        XCTAssertEqual(compared.map { $0["status"] as? String }, Array(repeating: "changed", count: 6), run.result.summary)
        XCTAssertNotNil(decoded("d-0002.jpg"), "both sheets are written")
        XCTAssertLessThan(run.maxRSSMegabytes, 160, "pictures of heavy pairs were kept for reuse")
        print("six 1280x8000-8500 pairs: peak \(Int(run.maxRSSMegabytes)) MiB")
    }

    /// TMPDIR on a full 300 KiB disc: the pair kept on disc (made so by a
    /// small --decode-memory) fails with one clear line naming the disc's
    /// trouble; a small pair beside it is compared; the run exits 65.
    func testAPairWhoseTemporaryFileCannotBeWrittenFailsAlone() throws {
        let small = try mountSmallDisk("small")
        makeFolder("base")
        makeFolder("shots")
        write(try page(height: 1500), to: "base/tall.png")
        write(try page(height: 1500, box: 1200), to: "shots/tall.png")
        write(try page(width: 64, height: 48), to: "base/small.png")
        write(try page(width: 64, height: 48, box: 10), to: "shots/small.png")
        let result = try collage(["--diff", "base", "shots", "--decode-memory", "16", "--json", "-o", "d.png"],
                                 environment: ["TMPDIR": small])
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        let failed = events(all, "failed")
        XCTAssertEqual(failed.map { $0["path"] as? String }, ["shots/tall.png"], result.summary)
        let message = failed.first?["error"] as? String ?? ""
        XCTAssertTrue(message.contains("temporary file") && message.contains("No space left on device"), message)
        XCTAssertEqual(events(all, "compared").map { $0["path"] as? String }, ["shots/small.png"], result.summary)
        let lines = result.stderrText.split(separator: "\n").filter { $0.contains("No space left on device") }
        XCTAssertEqual(lines.count, 1, result.stderrText)
        var entries: [String] = []
        if let folder = opendir(small) {
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { entries.append(name) }
            }
            closedir(folder)
        }
        XCTAssertEqual(entries, [], "nothing is left in TMPDIR")
    }
}
