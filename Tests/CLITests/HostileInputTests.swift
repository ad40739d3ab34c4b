import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// Files whose structure lies (CollageTestSupport's `Hostile.catalogue`:
/// chunks, strips, tiles, frames and boxes larger than the file, counts
/// that are claims, canvases no decoder should allocate). Each is reported
/// with a reason that names the problem, and no run goes past 200 MiB of
/// peak memory. A 43-byte PNG declaring a 1 GiB iTXt chunk took 1.06 GB
/// and 1-3 s before the structure check.
final class HostileInputTests: CLITestCase {
    /// 200 MiB; scripts/sanitize raises it (COLLAGE_HOSTILE_MEMORY_MB), as
    /// AddressSanitizer's shadow memory and quarantine multiply every peak.
    private let budgetMB = ProcessInfo.processInfo.environment["COLLAGE_HOSTILE_MEMORY_MB"].flatMap { Double($0) } ?? 200

    /// `result` ran with -v: a rejection's line is told only there (or on a
    /// terminal), a failure's always.
    private func check(_ all: [[String: Any]], _ result: ProcessResult, _ file: HostileFile, _ path: String) {
        XCTAssertEqual(verdicts(all, path), [file.verdict], "\(path)\n\(result.summary.prefix(3000))")
        let event = all.first { field($0, "path") == path && field($0, "event") != "accepted" }
        let reason = event.flatMap { field($0, "error") ?? field($0, "detail") } ?? ""
        XCTAssertTrue(reason.contains(file.reason), "\(path): '\(reason)' names '\(file.reason)'")
        let lines = result.stderrLines.filter { $0.contains(path) }
        XCTAssertTrue(lines.count == 1 && lines[0].contains(file.reason), "\(path): one stderr line with the reason: \(lines)")
    }

    /// All of them in one run beside a good image: each has its verdict
    /// and reason, the good image is the collage, exit 65, under 200 MiB.
    func testEveryHostileFileIsReportedWithItsReason() throws {
        makeFolder("hostile")
        for file in Hostile.catalogue { write(file.bytes, to: "hostile/" + file.name) }
        makeFolder("good")
        writeImage(palette[0], to: "good/a.png")
        settle()
        let run = try measuredCollage(["hostile", "good", "--json", "-v", "-o", "out.png"])
        XCTAssertEqual(run.result.status, 65, run.result.summary)
        let all = jsonEvents(run.result)
        for file in Hostile.catalogue { check(all, run.result, file, "hostile/" + file.name) }
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["good/a.png"])
        XCTAssertLessThan(run.maxRSSMegabytes, budgetMB, "no hostile file is allowed its claim")
        print("\(Hostile.catalogue.count) hostile files and a good one: peak \(Int(run.maxRSSMegabytes)) MB")
    }

    /// Each alone: refused with its reason and well under the memory
    /// budget: what a file costs is shown by the memory it was allowed, not
    /// by a clock (the runner's deadline is only a hang guard).
    func testEachHostileFileAloneIsCheap() throws {
        var figures: [String] = []
        for file in Hostile.catalogue {
            write(file.bytes, to: file.name)
            settle()
            let run = try measuredCollage([file.name, "--json", "-v", "-o", "out.png"])
            XCTAssertFalse(run.result.timedOut, "\(file.name): hung\n\(run.result.summary)")
            XCTAssertEqual(run.result.status, 66, "\(file.name)\n\(run.result.summary)")
            check(jsonEvents(run.result), run.result, file, file.name)
            XCTAssertLessThan(run.maxRSSMegabytes, budgetMB, file.name)
            figures.append("\(file.name): \(Int(run.maxRSSMegabytes)) MB")
        }
        print("hostile files alone, peak memory:\n  " + figures.joined(separator: "\n  "))
    }

    /// Two decodes failing at once, on two threads, each keep the decoder's
    /// own reason: PNGs with a bad IDAT CRC say "CRC error"; PNGs whose
    /// compressed data is damaged (CRC recomputed) say what zlib found, and
    /// never the other's reason.
    func testDecoderReasonsStayWithTheirImage() throws {
        // A gradient compresses (Huffman-coded blocks, which damage breaks;
        // noise would be stored blocks, which damage only changes).
        let gradient = PixelBuffer(width: 900, height: 600) { x, y in RGB(red: UInt8(x % 256), green: UInt8(y % 256), blue: 7) }
        let png = try Encoder.encode(gradient, suffix: ".png").bytes
        let idat = try XCTUnwrap(Fixture.pngChunks(png).last { $0.type == "IDAT" })
        var badCRC = png
        badCRC[idat.offset + 8 + idat.length] ^= 0xFF
        let first = try XCTUnwrap(Fixture.pngChunks(png).first { $0.type == "IDAT" })
        var badData = png
        for index in stride(from: first.offset + 8 + first.length / 2, to: first.offset + 8 + first.length, by: 7) {
            badData[index] ^= 0x5A
        }
        Fixture.fixCRC(&badData, chunkAt: first.offset)
        makeFolder("in")
        for index in 0..<4 {
            write(badCRC, to: "in/\(index)-a-crc.png")
            write(badData, to: "in/\(index)-b-data.png")
        }
        let result = try collage(["in", "--json", "--jobs", "2", "-o", "out.png"], timeout: 120)
        XCTAssertEqual(result.status, 66, result.summary)
        let failed = events(jsonEvents(result), "failed")
        XCTAssertEqual(failed.count, 8, result.summary)
        for event in failed {
            let path = field(event, "path") ?? "", error = field(event, "error") ?? ""
            if path.contains("crc") {
                XCTAssertTrue(error.contains("IDAT: CRC error"), "\(path): \(error)")
            } else {
                XCTAssertFalse(error.contains("CRC"), "\(path) has the other image's reason: \(error)")
                XCTAssertTrue(error.contains("IDAT: "), "\(path): zlib's reason: \(error)")
            }
        }
        print("decoder reasons:\n  " + failed.compactMap { field($0, "error") }.joined(separator: "\n  "))
    }
}
