import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Exit status": one test (at least) per row of the table, each
/// asserting standard output, standard error and the status exactly. Here
/// 0, 64 and 65; the runs that write nothing (66, 73, 74) are
/// ExitStatusFailureTests', the signals (130, 143) SignalTests'.
final class ExitStatusTests: CLITestCase {

    // MARK: 0

    /// 0: stdout is exactly the written path and a newline; stderr is empty
    /// (it is a pipe, not a terminal, and nothing went wrong). The picture
    /// follows the seed grid: 3 images → 2 rows, 2 columns, the fourth
    /// cell white.
    func testSuccessPrintsOnlyThePathWritten() throws {
        makeFolder("in")
        let colours = Array(palette.prefix(3))
        for (index, colour) in colours.enumerated() { writeImage(colour, to: "in/\(index).png") }
        let result = try collage(["in", "-o", "out.png"])
        assertSuccess(result, stdout: "out.png\n")
        guard let picture = decoded("out.png") else { return }
        XCTAssertEqual(picture.width, 1200)
        XCTAssertEqual(picture.height, 800)
        assertTiles(picture, colours, tolerance: 0)
        XCTAssertEqual(picture.pixel(x: 900, y: 600), .white, "the empty cell is the background")
        XCTAssertEqual(listingText(), ["in", "out.png"], "no temporary file left")
    }

    /// 0 with the default output name: `collage.jpg` in the working directory.
    func testDefaultOutputIsCollageJpg() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        let result = try collage(["in"])
        assertSuccess(result, stdout: "collage.jpg\n")
        guard let picture = decoded("collage.jpg") else { return }
        XCTAssertEqual([picture.width, picture.height], [1200, 800])
        XCTAssertEqual(Array(contents("collage.jpg")!.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")
    }

    // MARK: 64

    func testUnknownOptionIsAUsageError() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        assertFailure(try collage(["--no-such-option", "in", "-o", "out.jpg"]), status: 64,
                      mentions: ["--no-such-option"])
        XCTAssertFalse(exists("out.jpg"))
    }

    func testMaxZeroIsAUsageError() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        assertFailure(try collage(["--max", "0", "in", "-o", "out.jpg"]), status: 64, mentions: ["--max"])
        XCTAssertFalse(exists("out.jpg"))
    }

    func testSizeWithoutHeightIsAUsageError() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        assertFailure(try collage(["--size", "12", "in", "-o", "out.jpg"]), status: 64, mentions: ["--size"])
        XCTAssertFalse(exists("out.jpg"))
    }

    func testUnknownBackgroundIsAUsageError() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        assertFailure(try collage(["--background", "nonsense", "in", "-o", "out.jpg"]), status: 64,
                      mentions: ["--background"])
        XCTAssertFalse(exists("out.jpg"))
    }

    func testARatingOutOfRangeIsAUsageError() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        for rating in ["6", "-2", "three"] {
            assertFailure(try collage(["--min-rating", rating, "in", "-o", "out.jpg"]), status: 64, mentions: ["--min-rating"])
        }
        XCTAssertFalse(exists("out.jpg"))
    }

    func testNoInputIsAUsageError() throws {
        assertFailure(try collage([String]()), status: 64)
        assertFailure(try collage(["-o", "out.jpg"]), status: 64)
        XCTAssertEqual(listingText(), [])
    }

    /// An extension that cannot be written is a usage error reported before
    /// any image is read: the input folder holds only files that would fail
    /// (a truncated JPEG, text named .jpg, an unreadable FIFO named .png), so
    /// reading any of them would end in 66, not 64. Under strace, nothing in
    /// the folder is even opened.
    func testUnknownOutputExtensionIsReportedBeforeAnyImageIsRead() throws {
        makeFolder("broken")
        let sample = contents(b(Package.samples + "/dune.jpg"))!
        write(Array(sample.prefix(sample.count / 2)), to: "broken/half.jpg")
        write(b("not an image\n"), to: "broken/text.jpg")
        XCTAssertEqual(mkfifo(path("broken/fifo.png"), 0o644), 0)
        for output in ["out.bmp", "out.txt", "out", "out.jpg.part"] {
            let message = assertFailure(try collage(["broken", "-o", output]), status: 64, mentions: [output])
            XCTAssertFalse(message.contains("half.jpg"), message)
            XCTAssertFalse(exists(output))
        }
        guard haveProgram("strace") else { throw XCTSkip("strace is not installed") }
        let log = path("strace.log")
        let traced = try runProcess([b("strace"), b("-f"), b("-e"), b("trace=openat,open,stat,newfstatat,statx"),
                                     b("-o"), b(log)] + command([b("broken"), b("-o"), b("out.bmp")]),
                                    directory: dir)
        XCTAssertEqual(traced.status, 64, traced.summary)
        let touched = String(decoding: contents(b(log)) ?? [], as: UTF8.self)
            .split(separator: "\n").filter { $0.contains("broken") && !$0.contains("execve") }
        XCTAssertEqual(touched, [], "the input folder is not touched before the usage error")
    }

    // MARK: 65

    /// 65: six good photos and one truncated JPEG (a real sample cut in
    /// half), --max 6: the truncated one is reported, the next good photo
    /// takes its place, six are used, a collage is written.
    func testTruncatedJPEGIsReportedAndTheNextImageTakesItsPlace() throws {
        makeFolder("in")
        let names = ["1-aqua.jpg", "3-dune.jpg", "4-greenmeadow.jpg", "5-raindrops.jpg", "6-storm.jpg", "7-twowings.jpg"]
        for (name, sample) in zip(names, Package.landscapes) { copySample(sample, to: "in/" + name) }
        let whole = contents(b(Package.samples + "/dune.jpg"))!
        write(Array(whole.prefix(whole.count / 2)), to: "in/2-truncated.jpg")

        settle()
        let plain = try collage(["in", "--max", "6", "-o", "out.jpg"])
        XCTAssertEqual(plain.status, 65, plain.summary)
        XCTAssertEqual(plain.stdoutText, "out.jpg\n", plain.summary)
        let lines = plain.stderrLines
        XCTAssertEqual(lines.count, 2, "one warning for the broken file, then the one line of the exit\n\(plain.summary)")
        XCTAssertTrue(lines.first?.contains("in/2-truncated.jpg") == true, plain.summary)
        XCTAssertFalse(lines.last?.contains("2-truncated") ?? true, "the last line says what went wrong overall")
        guard let picture = decoded("out.jpg") else { return }
        XCTAssertEqual([picture.width, picture.height], [1200, 800])

        settle()
        let json = try collage(["in", "--max", "6", "--json", "-o", "out.jpg"])
        XCTAssertEqual(json.status, 65, json.summary)
        let all = jsonEvents(json)
        let failed = events(all, "failed")
        XCTAssertEqual(failed.map { $0["path"] as? String }, ["in/2-truncated.jpg"])
        XCTAssertFalse((failed.first?["error"] as? String ?? "").isEmpty, "the failure says why")
        let written = events(all, "written")
        XCTAssertEqual(written.count, 1)
        XCTAssertEqual(written.first?["images"] as? [String], names.map { "in/" + $0 },
                       "the six good photos, the one after the broken file in its place")
        XCTAssertEqual(all.last?["event"] as? String, "summary")
        XCTAssertEqual(all.last?["used"] as? Int, 6)
        XCTAssertEqual(all.last?["failed"] as? Int, 1)
        XCTAssertEqual(all.last?["written"] as? Int, 1)
    }

    /// A text file named .jpg is not a corrupt image but an unsupported one:
    /// `rejected` with reason `unsupported` (what the code does), one line
    /// with -v (off a terminal a run that ends well says nothing); the status stays 0 because no input *failed* (the contract.s
    /// `failed` covers unreadable, corrupt, truncated, vanished).
    func testTextFileNamedJpgIsRejectedAsUnsupported() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        write(b("hello, I am text\n"), to: "in/b.jpg")
        writeImage(palette[1], to: "in/c.png")
        assertSuccess(try collage(["in", "-o", "out.png"]), stdout: "out.png\n")
        let plain = try collage(["in", "-v", "-o", "out.png"])
        XCTAssertEqual(plain.status, 0, plain.summary)
        XCTAssertEqual(plain.stdoutText, "out.png\n")
        XCTAssertEqual(plain.stderrLines.filter { $0.contains("in/b.jpg") }.count, 1, plain.summary)

        let json = try collage(["in", "--json", "-o", "out.png"])
        XCTAssertEqual(json.status, 0, json.summary)
        let all = jsonEvents(json)
        let rejected = events(all, "rejected")
        XCTAssertEqual(rejected.map { $0["path"] as? String }, ["in/b.jpg"])
        XCTAssertEqual(rejected.first?["reason"] as? String, "unsupported")
        XCTAssertEqual(events(all, "failed").count, 0)
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png", "in/c.png"])
    }
}
