import Foundation
import Glibc
import Vips
import XCTest

/// "quiet and progress": off a terminal a good run says nothing on
/// stderr (cron mails nothing); --quiet keeps only the error line of a
/// failed run; --verbose tells every image's fate; on a terminal a progress
/// line is drawn with carriage returns and cleared at the end, coloured
/// warnings unless NO_COLOR, and nothing at all with --quiet.
final class QuietAndProgressTests: CLITestCase {
    private let colourEscape = try! Regex("\u{1B}\\[[0-9;]*m")
    private let progressLine = try! Regex("collage: [0-9]+ scanned, [0-9]+ used, [0-9]+ rejected, [0-9]+ failed, [0-9]+ sheets?")

    // MARK: - Off a terminal

    /// Each kind of good run, stderr a pipe: nothing on stderr, only the
    /// written paths (or the dry run's plan) on stdout.
    func testSuccessfulRunsAreSilentOffATerminal() throws {
        makeFolder("in")
        for index in 0..<5 { writeImage(palette[index], to: "in/\(index).png") }
        assertSuccess(try collage(["in", "-o", "out.jpg"]), stdout: "out.jpg\n")
        assertSuccess(try collage(["in", "--sheets", "--max", "2", "-o", "s.jpg"]),
                      stdout: "s-0001.jpg\ns-0002.jpg\ns-0003.jpg\n")
        assertSuccess(try collage(["in", "--skip-unchanged", "-o", "kept.jpg"]), stdout: "kept.jpg\n")
        assertSuccess(try collage(["in", "--skip-unchanged", "-o", "kept.jpg"]), stdout: "kept.jpg\n")
        assertSuccess(try collage(["in", "--dry-run", "--max", "5", "-o", "plan.jpg"]),
                      stdout: (0..<5).map { "plan.jpg\tin/\($0).png\n" }.joined())
        makeFolder("four")
        for index in 0..<4 { writeImage(palette[index], to: "four/\(index).png") }
        assertSuccess(try collage(["four", "--require-even", "-o", "even.jpg"]), stdout: "even.jpg\n")
    }

    /// README's cron line: `--per-folder --skip-unchanged ~/Photos` where
    /// ~/Photos and ~/Photos/2024 hold only folders. Every album is written,
    /// and stderr stays empty, the first night and the next: folders that
    /// hold no image at all are not "skipped", they are just folders.
    func testTheCronLineIsSilent() throws {
        makeFolder("Photos")
        makeFolder("Photos/2024")
        makeFolder("Photos/2024/summer")
        makeFolder("Photos/2024/winter")
        writeImage(palette[0], to: "Photos/2024/summer/1.png")
        writeImage(palette[1], to: "Photos/2024/summer/2.png")
        writeImage(palette[2], to: "Photos/2024/winter/1.png")
        write(b("shopping list\n"), to: "Photos/notes.txt")
        makeFolder("albums")
        let arguments = ["--per-folder", "--skip-unchanged", "Photos", "-o", "albums/{path}.jpg"]
        let expected = "albums/2024_summer.jpg\nalbums/2024_winter.jpg\n"
        assertSuccess(try collage(arguments), stdout: expected)
        assertSuccess(try collage(arguments), stdout: expected)
    }

    /// --quiet: no cap notice, no warning about a rejected file, no
    /// --require-even notice; the paths are still printed.
    func testQuietSilencesWarningsAndNotices() throws {
        makeFolder("in")
        for index in 0..<8 { writeImage(palette[index], to: "in/\(index).png") }
        let loud = try collage(["in", "-o", "out.jpg", "-v"])
        XCTAssertEqual(loud.status, 0, loud.summary)
        XCTAssertEqual(loud.stderrLines.filter { $0.contains("--max 6 reached") }.count, 1, "the cap notice with -v\n\(loud.summary)")
        assertSuccess(try collage(["in", "-o", "out.jpg"]), stdout: "out.jpg\n")
        assertSuccess(try collage(["in", "-o", "out.jpg", "--quiet"]), stdout: "out.jpg\n")
        assertSuccess(try collage(["in", "-o", "out.jpg", "-q"]), stdout: "out.jpg\n")

        makeFolder("mixed")
        writeImage(palette[0], to: "mixed/a.png")
        write(b("not a photo\n"), to: "mixed/b.jpg")
        writeImage(palette[1], to: "mixed/c.png")
        writeImage(palette[2], to: "mixed/d.png")
        let warned = try collage(["mixed", "--require-even", "-o", "mixed.jpg", "-v"])
        XCTAssertEqual(warned.status, 0, warned.summary)
        XCTAssertTrue(warned.stderrLines.contains { $0.contains("skipped mixed/b.jpg") }, warned.summary)
        XCTAssertTrue(warned.stderrLines.contains { $0.contains("--require-even") }, warned.summary)
        assertSuccess(try collage(["mixed", "--require-even", "-o", "mixed.jpg"]), stdout: "mixed.jpg\n")
        assertSuccess(try collage(["mixed", "--require-even", "-o", "mixed.jpg", "--quiet"]), stdout: "mixed.jpg\n")
    }

    /// --quiet still prints the one line of a non-zero exit, and nothing else.
    func testQuietStillPrintsTheErrorLine() throws {
        makeFolder("portraits")
        writeImage(palette[0], to: "portraits/p.png", width: 48, height: 64)
        write(b("text\n"), to: "portraits/q.jpg")
        assertFailure(try collage(["portraits", "-q", "-o", "out.jpg"]), status: 66, mentions: ["--allow-portrait"])
        assertFailure(try collage(["missing", "--quiet", "-o", "out.jpg"]), status: 66, mentions: ["missing"])
        assertFailure(try collage(["portraits", "--quiet", "--max", "0"]), status: 64, mentions: ["--max"])

        makeFolder("broken")
        writeImage(palette[0], to: "broken/a.png")
        let noise = try noisyJPEG(width: 300, height: 200)
        write(Array(noise.prefix(noise.count / 3)), to: "broken/b.jpg")
        settle()
        let result = try collage(["broken", "--quiet", "-o", "out.jpg"])
        XCTAssertEqual(result.status, 65, result.summary)
        XCTAssertEqual(result.stdoutText, "out.jpg\n")
        XCTAssertEqual(result.stderrLines.count, 1, "only the exit's line, not the per-file warning\n\(result.summary)")
    }

    /// --verbose says something about every image it looked at: used,
    /// portrait, unsupported.
    func testVerboseSaysSomethingAboutEachImage() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        writeImage(palette[1], to: "in/b-portrait.png", width: 48, height: 64)
        write(b("text\n"), to: "in/c-text.jpg")
        writeImage(palette[2], to: "in/d.png")
        let quiet = try collage(["in", "-o", "out.jpg"])
        let verbose = try collage(["in", "-o", "out.jpg", "--verbose"])
        XCTAssertEqual(verbose.status, 0, verbose.summary)
        XCTAssertEqual(verbose.stdoutText, "out.jpg\n")
        for name in ["in/a.png", "in/b-portrait.png", "in/c-text.jpg", "in/d.png"] {
            XCTAssertTrue(verbose.stderrLines.contains { $0.contains(name) }, "\(name) on stderr\n\(verbose.summary)")
        }
        XCTAssertGreaterThan(verbose.stderrLines.count, quiet.stderrLines.count)
        let short = try collage(["in", "-o", "out.jpg", "-v"])
        XCTAssertEqual(short.stderrLines.count, verbose.stderrLines.count, "-v is --verbose")
    }

    // MARK: - On a terminal

    /// 40 hard links to a 2000x1300 noisy JPEG, --sheets: the terminal shows
    /// the progress line, redrawn after "\r ESC[K", and the last bytes clear
    /// it. Stdout (a file here) has only the sheet paths.
    func testProgressLineOnATerminal() throws {
        makeFolder("photos")
        write(try noisyJPEG(width: 2000, height: 1300, bands: 3), to: "photos/00.jpg")
        for index in 1..<40 { hardLink("photos/00.jpg", b("photos/" + String(format: "%02d.jpg", index))) }
        let result = try collageOnTerminal(["photos", "--sheets", "-o", "sheet.jpg"], environment: ["NO_COLOR": "1"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, (1...7).map { "sheet-000\($0).jpg\n" }.joined())
        let text = result.terminalText
        let draws = text.components(separatedBy: "\r\u{1B}[Kcollage: ").count - 1
        XCTAssertGreaterThanOrEqual(draws, 2, "the progress line is drawn and redrawn\n\(result.summary)")
        XCTAssertTrue(text.contains(progressLine), "a progress line with its counts\n\(result.summary)")
        XCTAssertTrue(text.hasSuffix("\r\u{1B}[K"), "the line is cleared last\n\(result.summary)")
        XCTAssertFalse(text.contains(colourEscape), "NO_COLOR: no colour\n\(result.summary)")
        XCTAssertFalse(text.contains("\n"), "a good run leaves no line behind\n\(result.summary)")
    }

    /// Small images go faster than the line's ten redraws a second, so
    /// counts are skipped; the last line drawn before the clear still holds
    /// the final ones.
    func testProgressLineShowsTheFinalCountsLast() throws {
        makeFolder("in")
        for index in 0..<12 { writeImage(palette[index % 4], to: "in/\(String(format: "%02d", index)).png") }
        let result = try collageOnTerminal(["in", "--sheets", "--max", "4", "-o", "sheet.png"], environment: ["NO_COLOR": "1"])
        XCTAssertEqual(result.status, 0, result.summary)
        let text = result.terminalText
        let draws = text.components(separatedBy: "\r\u{1B}[K").filter { $0.hasPrefix("collage: ") }
        XCTAssertTrue(draws.last?.hasPrefix("collage: 12 scanned, 12 used, 0 rejected, 0 failed, 3 sheets") ?? false,
                      "the last line drawn: \(draws.last ?? "none")\n\(result.summary)")
        XCTAssertTrue(text.hasSuffix("\r\u{1B}[K"), "then it is cleared\n\(result.summary)")
    }

    /// NO_COLOR set: a warning on the terminal is plain text.
    func testNoColourWithNO_COLOR() throws {
        makeWarningFolder()
        let result = try collageOnTerminal(["in", "-o", "out.jpg"], environment: ["NO_COLOR": "1", "TERM": "xterm"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "out.jpg\n")
        XCTAssertTrue(result.terminalText.contains("skipped in/b.jpg"), "the warning is there\n\(result.summary)")
        XCTAssertFalse(result.terminalText.contains(colourEscape), "no colour sequence\n\(result.summary)")
    }

    /// Without NO_COLOR, the same warning is coloured.
    func testWarningIsColouredWithoutNO_COLOR() throws {
        makeWarningFolder()
        let result = try collageOnTerminal(["in", "-o", "out.jpg"], environment: ["TERM": "xterm"], unset: ["NO_COLOR"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "out.jpg\n")
        let warning = result.terminalText.split(separator: "\n").first { $0.contains("in/b.jpg") }.map(String.init) ?? ""
        XCTAssertTrue(warning.contains(colourEscape), "the warning line is coloured: \(warning)\n\(result.summary)")
    }

    /// --quiet on a terminal: no progress line, nothing at all.
    func testQuietHasNoProgressLine() throws {
        makeFolder("photos")
        write(try noisyJPEG(width: 2000, height: 1300, bands: 3), to: "photos/00.jpg")
        for index in 1..<12 { hardLink("photos/00.jpg", b("photos/" + String(format: "%02d.jpg", index))) }
        let result = try collageOnTerminal(["photos", "--sheets", "--quiet", "-o", "sheet.jpg"], unset: ["NO_COLOR"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "sheet-0001.jpg\nsheet-0002.jpg\n")
        XCTAssertEqual(result.terminal, [], "nothing on the terminal\n\(result.summary)")
    }

    /// a.png, a text file named b.jpg, c.png.
    private func makeWarningFolder() {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        write(b("not a photo\n"), to: "in/b.jpg")
        writeImage(palette[1], to: "in/c.png")
    }
}
