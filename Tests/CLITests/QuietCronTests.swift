import Foundation
import Glibc
import Vips
import XCTest

/// "Output": off a terminal, a run that ends with status 0 prints nothing
/// on standard error. The cap's notice, files passed over (empty, not an
/// image, sidecars, videos without --video) are told with -v, on a
/// terminal, and as `notice` events under --json; the summary counts what
/// was passed over, by kind.
final class QuietCronTests: CLITestCase {
    /// A phone folder: 8 photos (more than --max 6), and before them in
    /// byte order an empty JPEG, a text file named .jpg, sidecars (.xmp, a
    /// Takeout .json, .AAE, .THM) and two videos. Returns a list of it for
    /// standard input that names one of the videos.
    private func makePhoneFolder() -> [UInt8] {
        makeFolder("phone")
        var list = ["phone/IMG_0000.xmp", "phone/IMG_0100.jpg", "phone/IMG_0101.jpg", "phone/IMG_0001.json",
                    "phone/IMG_0002.AAE", "phone/MVI_0003.THM", "phone/VID_0001.mp4"]
        write([], to: "phone/IMG_0100.jpg")
        write(b("<html>not a photo</html>\n"), to: "phone/IMG_0101.jpg")
        for name in ["IMG_0000.xmp", "IMG_0001.json", "IMG_0002.AAE", "MVI_0003.THM"] {
            write(b("sidecar"), to: "phone/" + name)
        }
        write(b("movie"), to: "phone/VID_0001.mp4")
        write(b("movie"), to: "phone/VID_0002.MOV")
        for index in 0..<8 {
            writeImage(palette[index], to: "phone/photo-\(index).png")
            list.append("phone/photo-\(index).png")
        }
        return b(list.joined(separator: "\n") + "\n")
    }

    func testAGoodRunOffATerminalPrintsNothingOnStandardError() throws {
        let list = makePhoneFolder()
        assertSuccess(try collage(["phone", "-o", "out.jpg"]), stdout: "out.jpg\n")
        assertSuccess(try collage(["-", "-o", "listed.jpg"], stdin: list), stdout: "listed.jpg\n")
        assertSuccess(try collage(["phone", "--sheets", "--max", "4", "-o", "s.jpg"]), stdout: "s-0001.jpg\ns-0002.jpg\n")
        assertSuccess(try collage(["phone", "--dry-run", "--max", "1", "-o", "d.jpg"]), stdout: "d.jpg\tphone/photo-0.png\n")
        guard let picture = decoded("listed.jpg") else { return }
        assertTiles(picture, Array(palette[0..<6]))
    }

    func testVerboseTellsWhatWasPassedOver() throws {
        let list = makePhoneFolder()
        let result = try collage(["-", "-v", "-o", "out.jpg"], stdin: list)
        XCTAssertEqual(result.status, 0, result.summary)
        let text = result.stderrText
        for expected in ["--max 6 reached", "phone/IMG_0100.jpg: empty file", "phone/IMG_0101.jpg",
                         "passed over 4 sidecar file(s)", "passed over 1 video file(s)",
                         "passed over phone/IMG_0002.AAE", "passed over 1 empty, 1 not_image, 4 sidecar, 1 video"] {
            XCTAssertTrue(text.contains(expected), "-v tells '\(expected)'\n\(result.summary)")
        }
        XCTAssertFalse(text.contains("skipped phone/IMG_0002.AAE"), "a sidecar is not tried\n\(result.summary)")
    }

    func testJSONHasNoticesAndCountsByKind() throws {
        let list = makePhoneFolder()
        for arguments in [["phone"], ["-"]] {
            let result = try collage(arguments + ["--json", "-o", "out.jpg"], stdin: list)
            XCTAssertEqual(result.status, 0, result.summary)
            XCTAssertEqual(result.stderr, [], "--json off a terminal: nothing on stderr")
            let all = assertValidEventStream(result, "\(arguments) --json")
            let notices = events(all, "notice").compactMap { $0["message"] as? String }
            XCTAssertTrue(notices.contains { $0.contains("--max 6 reached") }, "\(notices)")
            XCTAssertTrue(notices.contains { $0.contains("sidecar") }, "\(notices)")
            let passed = all.last?["passed_over"] as? [String: Int]
            let videos = arguments == ["-"] ? 1 : 2  // the list names one of the two
            XCTAssertEqual(passed, ["empty": 1, "not_image": 1, "sidecar": 4, "video": videos, "raw": 0, "being_written": 0],
                           "\(arguments)")
            XCTAssertEqual(events(all, "rejected").count, 2, "the empty file and the text are still rejected")
        }
    }

    /// On a terminal, the same notices and skipped lines are told without -v.
    func testATerminalIsToldWithoutVerbose() throws {
        _ = makePhoneFolder()
        let result = try collageOnTerminal(["phone", "-o", "out.jpg"], environment: ["NO_COLOR": "1"])
        XCTAssertEqual(result.status, 0, result.summary)
        for expected in ["--max 6 reached", "skipped phone/IMG_0100.jpg: empty file", "passed over 2 video file(s)",
                         "passed over 4 sidecar file(s)"] {
            XCTAssertTrue(result.terminalText.contains(expected), "'\(expected)' on the terminal\n\(result.summary)")
        }
    }

    /// What goes wrong still has its line off a terminal, and its status.
    func testAFailureStillSpeaks() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        let noise = try noisyJPEG(width: 300, height: 200)
        write(Array(noise.prefix(noise.count / 3)), to: "in/b.jpg")
        write(b("x"), to: "in/c.xmp")
        settle()
        let result = try collage(["in", "-o", "out.jpg"])
        XCTAssertEqual(result.status, 65, result.summary)
        XCTAssertTrue(result.stderrText.contains("in/b.jpg"), result.summary)
        XCTAssertFalse(result.stderrText.contains("sidecar"), "passed over files are not a failure's business\n\(result.summary)")
    }
}
