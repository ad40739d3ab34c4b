import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Output": a failed run never touches the previous output.
final class NoClobberTests: CLITestCase {
    private var previous: [UInt8] = []

    /// An earlier collage at out.jpg, and a folder of good images.
    private func setUpPreviousOutput(at relative: String = "out.jpg") {
        makeFolder("in")
        for index in 0..<3 { writeImage(palette[index], to: "in/\(index).png") }
        previous = image(palette[4], width: 300, height: 200, suffix: ".jpg")
        write(previous, to: relative)
    }

    private func assertUntouched(_ relative: String = "out.jpg", file: StaticString = #filePath, line: UInt = #line) {
        assertSameBytes(contents(relative), previous, "\(relative) is byte for byte the previous file",
                        file: file, line: line)
        let folder = (relative as NSString).deletingLastPathComponent
        for name in listingText(folder) where name.hasPrefix(".") {
            XCTFail("temporary file left: \(name)", file: file, line: line)
        }
    }

    func testUsageErrorsLeaveTheOutputAlone() throws {
        setUpPreviousOutput()
        assertFailure(try collage(["in", "--max", "0", "-o", "out.jpg"]), status: 64)
        assertUntouched()
        assertFailure(try collage(["in", "--no-such-option", "-o", "out.jpg"]), status: 64)
        assertUntouched()
        assertFailure(try collage(["in", "--size", "0x0", "-o", "out.jpg"]), status: 64)
        assertUntouched()
        assertFailure(try collage(["-o", "out.jpg"]), status: 64)
        assertUntouched()
    }

    func testNothingToDoLeavesTheOutputAlone() throws {
        setUpPreviousOutput()
        assertFailure(try collage(["no-such-input", "-o", "out.jpg"]), status: 66)
        assertUntouched()
        makeFolder("portraits")
        writeImage(palette[0], to: "portraits/p.png", width: 48, height: 64)
        assertFailure(try collage(["portraits", "-o", "out.jpg"]), status: 66)
        assertUntouched()
        // Only broken inputs: nothing written, the old file stays.
        makeFolder("broken")
        let whole = contents(b(Package.samples + "/dune.jpg"))!
        write(Array(whole.prefix(whole.count / 3)), to: "broken/cut.jpg")
        let result = try collage(["broken", "-o", "out.jpg"])
        XCTAssertEqual(result.status, 66, result.summary)
        XCTAssertEqual(result.stdout, [])
        assertUntouched()
    }

    /// 73: the folder holding the previous output is not writable for the
    /// user running collage.
    func testNotWritableFolderLeavesTheOutputAlone() throws {
        let user = try nonRootUser()
        makeFolder("locked")
        setUpPreviousOutput(at: "locked/out.jpg")
        chmod(path("locked/out.jpg"), 0o666)  // the file itself is writable: only the folder is not
        assertFailure(try collage(["in", "-o", "locked/out.jpg"], as: user), status: 73)
        assertUntouched("locked/out.jpg")
        XCTAssertEqual(listingText("locked"), ["out.jpg"])
    }

    /// 74 (a full disk) keeps the previous output: see
    /// ExitStatusTests.testFullDiskIs74AndLeavesTheOldOutputAlone; here the
    /// same with a JPEG and --sheets naming.
    func testFullDiskLeavesSheetOutputAlone() throws {
        let disk = try mountSmallDisk("disk")
        makeFolder("in")
        for sample in Package.landscapes { copySample(sample, to: "in/" + sample) }
        previous = image(palette[4], width: 300, height: 200, suffix: ".jpg")
        write(previous, to: "disk/sheet-0001.png")
        fillDisk(disk + "/filler")
        let result = try collage(["in", "--sheets", "-o", "disk/sheet.png"])
        assertFailure(result, status: 74)
        assertUntouched("disk/sheet-0001.png")
        XCTAssertEqual(listingText("disk"), ["filler", "sheet-0001.png"])
    }

    /// "A reader sees either the previous file or the complete new one ...
    /// whatever happens to the process": runs killed with SIGKILL at
    /// moments each proved first and held still (SIGSTOP): the lock taken
    /// (before any image is read), the first image's header read, the
    /// sixth's (the decodes and the sheet under way), the temporary file
    /// made (the save under way), and the new file renamed into place
    /// (the run not yet over). Each leaves out.png either byte for byte the
    /// previous file or a complete new collage, and nothing else under a
    /// visible name. (A killed process cannot remove its hidden temporary
    /// file; that is not checked here.)
    func testKilledRunsNeverLeaveAPartialOutput() throws {
        makeFolder("in")
        let big = try ExitStatusTests.bigNoisyJPEG()
        for index in 0..<6 { write(big, to: "in/\(index).jpg") }
        previous = image(palette[4], width: 300, height: 200, suffix: ".png")
        write(previous, to: "out.png")
        let arguments = ["in", "--size", "2400x1600", "--json", "-o", "out.png"]
        let accepted = { (process: RunningProcess) in process.eventsSoFar.filter { field($0, "event") == "accepted" }.count }
        // The lock first: a killed run leaves its lock file, which later runs open without making it.
        let moments: [(String, (RunningProcess, FolderEvents) -> Bool)] = [
            ("the lock taken", { _, folder in folder.count(.created, ".out.png.collage-lock") > 0 }),
            ("the first header read", { process, _ in accepted(process) >= 1 }),
            ("the sixth header read", { process, _ in accepted(process) >= 6 }),
            ("the temporary file made", { _, folder in folder.count(.created) { $0.contains(".collage-tmp-") } > 0 }),
            ("out.png renamed into place", { _, folder in folder.count(.movedIn, "out.png") > 0 }),
        ]
        for (moment, reached) in moments {
            let run = try killed(arguments, watching: "", at: reached)
            XCTAssertTrue(run.reached, "\(moment): reached before the run ended\n\(run.result.summary)")
            XCTAssertEqual(run.result.signal, SIGKILL, "\(moment): killed there\n\(run.result.summary)")
            let now = contents("out.png")
            if now != previous, let picture = decoded("out.png") {
                XCTAssertEqual([picture.width, picture.height], [2400, 1600], "\(moment): the new file is complete")
            }
            if moment.contains("renamed"), let picture = decoded("out.png") {
                XCTAssertEqual([picture.width, picture.height], [2400, 1600], "\(moment): a new collage is in place")
            }
            if let now { previous = now }  // the next run replaces whichever it is
            XCTAssertEqual(listingText().filter { !$0.hasPrefix(".") }, ["in", "out.png"], moment)
        }
    }

    /// A successful run replaces the file completely, keeping its permissions.
    func testSuccessReplacesTheOutputKeepingItsMode() throws {
        setUpPreviousOutput()
        chmod(path("out.jpg"), 0o640)
        assertSuccess(try collage(["in", "-o", "out.jpg"]), stdout: "out.jpg\n")
        XCTAssertNotEqual(contents("out.jpg"), previous)
        if let picture = decoded("out.jpg") { assertTiles(picture, Array(palette[0..<3])) }
        var info = stat()
        XCTAssertEqual(stat(path("out.jpg"), &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o640)
        XCTAssertEqual(listingText(), ["in", "out.jpg"])
    }
}
