import Foundation
import Glibc
import Vips
import XCTest

/// output faults (docs/what-happens-when.md): a disk that fills
/// up between two sheets (74), a read-only file system (73), an output
/// folder that vanishes mid-run (73), names too long (73), and SIGKILL at
/// many moments of a --sheets run. Each: one clear stderr line, the old
/// output byte for byte intact where there was one, no temporary file.
final class HardeningOutputTests: CLITestCase {

    /// Eight 150x100 images of noise: 4 to a 300x200 PNG sheet, each sheet
    /// about 180 KB (noise does not compress).
    private func makeNoiseInputs(count: Int = 8) throws {
        makeFolder("in")
        for index in 0..<count {
            let bytes = try Encoder.encode(Fixture.noise(width: 150, height: 100, seed: UInt64(index + 1)), suffix: ".png").bytes
            write(bytes, to: "in/" + String(format: "%02d.png", index))
        }
    }

    /// A 300 KiB tmpfs: the first sheet (about 180 KB) fits, the second
    /// does not. The run writes sheet 1, fails on sheet 2 with 74 and one
    /// line naming it; sheet 1 is complete; the previous sheet-0002.png is
    /// byte for byte what it was; no temporary file is left; the --json
    /// record says sheet 1 was written and the summary's status is 74.
    func testDiskFullBetweenSheetsIs74AndKeepsTheOldSheet() throws {
        let disk = try mountSmallDisk("disk")
        try makeNoiseInputs()
        let old = image(palette[3], width: 40, height: 30, suffix: ".png")
        write(old, to: "disk/sheet-0002.png")
        let result = try collage(["in", "--sheets", "--max", "4", "--size", "300x200", "--json",
                                  "-o", "disk/sheet.png"], timeout: 60)
        XCTAssertEqual(result.status, 74, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        XCTAssertTrue(result.stderrLines.first?.contains("disk/sheet-0002.png") == true, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(events(all, "written").compactMap { field($0, "output") }, ["disk/sheet-0001.png"])
        XCTAssertEqual(all.last?["status"] as? Int, 74)
        if let sheet = decoded("disk/sheet-0001.png") { XCTAssertEqual([sheet.width, sheet.height], [300, 200]) }
        assertSameBytes(contents("disk/sheet-0002.png"), old, "the old sheet 2 is untouched")
        XCTAssertEqual(listingText("disk"), ["sheet-0001.png", "sheet-0002.png"], "no temporary or lock file: \(disk)")
    }

    /// The output's file system is read-only (a tmpfs remounted ro): 73,
    /// checked before any image is read, one line naming the folder; the old
    /// output is intact and nothing is created.
    func testReadOnlyFileSystemIs73() throws {
        let disk = try mountSmallDisk("disk")
        let old = image(palette[3], width: 40, height: 30, suffix: ".jpg")
        write(old, to: "disk/out.jpg")
        let remounted = try runProcess([b("mount"), b("-o"), b("remount,ro"), b(disk)])
        guard remounted.status == 0 else { throw XCTSkip("cannot remount the tmpfs read-only: \(remounted.stderrText)") }
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        let message = assertFailure(try collage(["in", "-o", "disk/out.jpg"]), status: 73, mentions: ["disk"])
        XCTAssertTrue(message.contains("Read-only file system"), message)
        assertSameBytes(contents("disk/out.jpg"), old, "the old output is untouched")
        XCTAssertEqual(listingText("disk"), ["out.jpg"])
    }

    /// The output folder is removed while a --sheets run is going (after
    /// its first sheet was written, the run held still (SIGSTOP) while the
    /// folder goes, so that no file of its own is made in it meanwhile):
    /// the next save fails with 73 and one line saying what could not be
    /// created; nothing is recreated.
    func testOutputFolderThatVanishesMidRunIs73() throws {
        makeFolder("in")
        write(try ExitStatusTests.bigNoisyJPEG(), to: "in/00.jpg")
        for index in 1..<8 { hardLink("in/00.jpg", b(String(format: "in/%02d.jpg", index))) }
        makeFolder("out")
        let process = try start(["in", "--sheets", "--max", "2", "--json", "-o", "out/sheet.jpg"])
        XCTAssertTrue(process.awaitEvent { field($0, "event") == "written" })
        kill(process.pid, SIGSTOP)
        let written = listingText("out").filter { !$0.hasPrefix(".") }.count
        _ = try runProcess([b("rm"), b("-rf"), b(path("out"))])
        kill(process.pid, SIGCONT)
        let result = process.wait(timeout: 600)
        XCTAssertLessThan(written, 4, "every sheet was written before the folder went")
        XCTAssertEqual(result.status, 73, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        let next = String(format: "out/sheet-%04d.jpg", written + 1)
        XCTAssertTrue(result.stderrLines.first?.contains(next) == true, "\(next): \(result.summary)")
        XCTAssertEqual(jsonEvents(result).last?["status"] as? Int, 73)
        XCTAssertFalse(exists("out"), "the vanished folder is not recreated")
    }

    /// An output name of 300 bytes (over NAME_MAX) and a path of over 4096
    /// bytes (PATH_MAX): 73, one line, nothing created. A name of 250 bytes
    /// is valid and is written, with no hidden file left beside it.
    func testNamesTooLongAre73() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        makeFolder("out")
        let tooLong = "out/" + String(repeating: "n", count: 296) + ".jpg"
        assertFailure(try collage(["in", "-o", tooLong]), status: 73)
        XCTAssertEqual(listingText("out"), [])
        let deep = "out/" + String(repeating: "d/", count: 2100) + "x.jpg"
        assertFailure(try collage(["in", "-o", deep]), status: 73)
        XCTAssertEqual(listingText("out"), [])

        let long = String(repeating: "l", count: 246) + ".jpg"  // 250 bytes: a valid name
        let result = try collage(["in", "-o", "out/" + long])
        assertSuccess(result, stdout: "out/\(long)\n")
        XCTAssertEqual(listingText("out"), [long], "the output, and no lock or temporary file")
        if let picture = decoded("out/" + long) { assertTiles(picture, [palette[0]]) }
    }

    /// SIGKILL at moments of a --sheets run (12 slow images, 3 to a
    /// 1800x1200 PNG sheet), each seen in the output folder (inotify) and
    /// held still (SIGSTOP) before the kill: the lock taken, before any
    /// sheet; each of the first three sheets' temporary file made (the
    /// write in progress if it is still there when the run stands still);
    /// each of them renamed into place. After each, every sheet in the
    /// folder is a complete image (a killed run may leave sheets it wrote,
    /// never a part of one) and only hidden files may be extra. Then a
    /// temporary file as a killed run leaves it (plus any real one) is
    /// removed by the next run writing the same output; another output's
    /// temporary file is not.
    func testSIGKILLDuringSheetsLeavesOnlyCompleteSheets() throws {
        makeFolder("in")
        write(try ExitStatusTests.bigNoisyJPEG(), to: "in/00.jpg")
        for index in 1..<12 { hardLink("in/00.jpg", b(String(format: "in/%02d.jpg", index))) }
        makeFolder("out")
        let arguments = ["in", "--sheets", "--max", "3", "--size", "1800x1200", "-o", "out/sheet.png"]
        let sheets = (1...4).map { String(format: "sheet-%04d.png", $0) }
        let temporary = { (name: String) in name.contains(".collage-tmp-") }
        // The lock first: a killed run leaves its lock file, which later runs open without making it.
        var moments: [(String, (FolderEvents) -> Bool)] = [("the lock taken", { $0.count(.created, ".sheet.png.collage-lock") > 0 })]
        for sheet in 1...3 {
            moments.append(("sheet \(sheet)'s temporary file made", { $0.count(.created, temporary) >= sheet }))
            moments.append(("sheet \(sheet) in place", { $0.count(.movedIn, sheets[sheet - 1]) > 0 }))
        }

        var outcomes: [String] = []
        var writing = 0  // kills while a temporary file was on disk
        for (moment, reached) in moments {
            let run = try killed(arguments, watching: "out", at: { reached($1) }) { folder in
                if let made = folder.all.last(where: { $0.kind == .created && temporary($0.name) }),
                   moment.contains("temporary"), exists("out/" + made.name) { writing += 1 }
            }
            XCTAssertTrue(run.reached, "\(moment): reached before the run ended\n\(run.result.summary)")
            XCTAssertEqual(run.result.signal, SIGKILL, "\(moment): killed there\n\(run.result.summary)")
            outcomes.append(moment)
            for name in listingText("out") {
                if name.hasPrefix(".") {
                    XCTAssertTrue(name.hasPrefix(".sheet.png.collage-"), "unexpected hidden file \(name)")
                    continue
                }
                XCTAssertTrue(sheets.contains(name), "unexpected file \(name)")
                if let sheet = decoded("out/" + name) {
                    XCTAssertEqual([sheet.width, sheet.height], [1800, 1200], "\(name) is complete (killed at \(moment))")
                }
            }
        }
        print("SIGKILL during --sheets at: " + outcomes.joined(separator: ", ")
              + "; \(writing) of 3 while a sheet's temporary file was on disk")

        write(b("partial bytes of a killed run"), to: "out/.sheet.png.collage-tmp-abcdefghijkl")
        write(b("another output's"), to: "out/.other.png.collage-tmp-abcdefghijkl")
        let next = try collage(arguments, timeout: 120)
        XCTAssertEqual(next.status, 0, next.summary)
        XCTAssertEqual(listingText("out"), [".other.png.collage-tmp-abcdefghijkl"] + sheets,
                       "this output's leftovers are removed, another's are not; no lock file is left")
        for name in sheets {
            if let sheet = decoded("out/" + name) { XCTAssertEqual([sheet.width, sheet.height], [1800, 1200]) }
        }
    }
}
