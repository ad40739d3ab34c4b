import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Selection": without --sheets the run stops once --max images are
/// accepted; the scan goes no further, so a huge folder costs about what a
/// folder of six does. The "limit reached" notice is a notice on stderr.
final class CapTests: CLITestCase {
    private let count = 2000

    /// 2000 hard links to one small JPEG, named img-0000.jpg ... img-1999.jpg
    /// (so byte order is number order).
    private func makeManyLinks() {
        makeFolder("pics")
        write(image(palette[0], width: 64, height: 48, suffix: ".jpg"), to: "pics/img-0000.jpg")
        for index in 1..<count {
            hardLink("pics/img-0000.jpg", b("pics/img-" + String(format: "%04d", index) + ".jpg"))
        }
    }

    /// Default --max 6: exactly the first six are used, stdout is the path;
    /// off a terminal stderr is empty (the run ended well), and -v tells
    /// the notice that more were left out and that --sheets would take
    /// them all.
    func testDefaultCapUsesSixAndSaysMoreWereLeftOut() throws {
        makeManyLinks()
        assertSuccess(try collage(["pics", "-o", "out.jpg"]), stdout: "out.jpg\n")
        let result = try collage(["pics", "-v", "-o", "out.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "out.jpg\n")
        let notices = result.stderrLines.filter { $0.contains("left out") }
        XCTAssertEqual(notices.count, 1, "one notice\n\(result.summary)")
        let notice = notices.first ?? ""
        XCTAssertTrue(notice.contains("left out"), notice)
        XCTAssertTrue(notice.contains("--sheets"), notice)
        XCTAssertTrue(notice.contains("6"), notice)

        let json = try collage(["pics", "--json", "-o", "out.jpg"])
        XCTAssertEqual(json.status, 0, json.summary)
        let all = jsonEvents(json)
        XCTAssertEqual(events(all, "written").first?["images"] as? [String],
                       (0..<6).map { "pics/img-" + String(format: "%04d", $0) + ".jpg" })
        XCTAssertEqual(all.last?["used"] as? Int, 6)
        XCTAssertLessThan(events(all, "accepted").count, 20, "the scan stopped near the cap")
    }

    /// Under strace, the capped run opens only about as many of the 2000
    /// image files as the cap: six, plus what the decoders had in flight
    /// (2 per job), plus the one looked at for the notice, plus a little slack.
    func testCappedRunOpensAboutAsManyFilesAsTheCap() throws {
        guard haveProgram("strace") else { throw XCTSkip("strace is not installed") }
        makeManyLinks()
        let jobs = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let log = path("strace.log")
        let result = try runProcess([b("strace"), b("-f"), b("-e"), b("trace=openat,open"), b("-o"), b(log)]
                                    + command([b("pics"), b("-o"), b("out.jpg")]), directory: dir)
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "out.jpg\n")
        let lines = String(decoding: contents(b(log)) ?? [], as: UTF8.self).split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 10, "strace wrote its log")
        let opened = lines.filter { $0.contains("pics/img-") }
        let limit = 6 + 2 * jobs + 4
        XCTAssertGreaterThanOrEqual(opened.count, 6, "the six used were opened")
        XCTAssertLessThan(opened.count, limit,
                          "\(opened.count) image files opened for a cap of 6 (\(jobs) jobs):\n"
                          + opened.prefix(40).joined(separator: "\n"))
    }

    /// --max 3 on a smaller folder: three used, 3 images → 2 rows of 2.
    func testMaxThree() throws {
        makeFolder("in")
        for index in 0..<5 { writeImage(palette[index], to: "in/\(index).png") }
        let result = try collage(["in", "--max", "3", "-o", "out.png"])
        assertSuccess(result, stdout: "out.png\n")
        let told = try collage(["in", "--max", "3", "-v", "-o", "out.png"])
        XCTAssertEqual(told.stderrLines.filter { $0.contains("--max 3 reached") }.count, 1, "the notice\n\(told.summary)")
        if let picture = decoded("out.png") {
            assertTiles(picture, Array(palette[0..<3]), tolerance: 2)
            XCTAssertEqual(picture.pixel(x: 900, y: 600), .white)
        }
    }

    /// Exactly --max eligible images: nothing was left out, so no notice.
    func testNoNoticeWhenNothingIsLeftOut() throws {
        makeFolder("in")
        for index in 0..<6 { writeImage(palette[index], to: "in/\(index).png") }
        writeImage(palette[6], to: "in/9-portrait.png", width: 48, height: 64)
        assertSuccess(try collage(["in", "-o", "out.png"]), stdout: "out.png\n")
    }
}
