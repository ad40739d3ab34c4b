import Foundation
import Glibc
import Synchronization
import Vips
import XCTest

/// The contract, "Exit status": one test (at least) per row of the table, each
/// asserting standard output, standard error and the status exactly.
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

        let plain = try collage(["in", "--max", "6", "-o", "out.jpg"])
        XCTAssertEqual(plain.status, 65, plain.summary)
        XCTAssertEqual(plain.stdoutText, "out.jpg\n", plain.summary)
        let lines = plain.stderrLines
        XCTAssertEqual(lines.count, 2, "one warning for the broken file, then the one line of the exit\n\(plain.summary)")
        XCTAssertTrue(lines.first?.contains("in/2-truncated.jpg") == true, plain.summary)
        XCTAssertFalse(lines.last?.contains("2-truncated") ?? true, "the last line says what went wrong overall")
        guard let picture = decoded("out.jpg") else { return }
        XCTAssertEqual([picture.width, picture.height], [1200, 800])

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

    // MARK: 66

    func testMissingInputIs66() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        assertFailure(try collage(["in", "no-such-folder", "-o", "out.jpg"]), status: 66, mentions: ["no-such-folder"])
        assertFailure(try collage(["no-such-file.jpg", "-o", "out.jpg"]), status: 66, mentions: ["no-such-file.jpg"])
        XCTAssertFalse(exists("out.jpg"))
    }

    /// An INPUT the user cannot read, file or folder (run as collage-test).
    func testUnreadableInputIs66() throws {
        let user = try nonRootUser()
        makeFolder("out")
        giveTo(user, "out")
        writeImage(palette[0], to: "secret.png")
        chmod(path("secret.png"), 0o600)
        makeFolder("private", mode: 0o700)
        writeImage(palette[1], to: "private/a.png")
        makeFolder("in")
        writeImage(palette[2], to: "in/b.png")

        assertFailure(try collage(["secret.png", "-o", "out/x.jpg"], as: user), status: 66, mentions: ["secret.png"])
        assertFailure(try collage(["in", "private", "-o", "out/x.jpg"], as: user), status: 66, mentions: ["private"])
        XCTAssertEqual(listingText("out"), [])
        // The same inputs are fine for their owner: the 66 was about permission.
        XCTAssertEqual(try collage(["secret.png", "private", "-o", "out/x.jpg"]).status, 0)
    }

    /// Nothing eligible: only portraits (a generated one, and a sample that is
    /// landscape as stored but portrait once its EXIF orientation is applied),
    /// or an empty folder.
    func testFolderWithNothingEligibleIs66() throws {
        makeFolder("portraits")
        writeImage(palette[0], to: "portraits/tall.png", width: 48, height: 64)
        copySample("wood-sideways.jpg", to: "portraits/wood-sideways.jpg")
        copySample("blinds-portrait.jpg", to: "portraits/blinds.jpg")
        assertFailure(try collage(["portraits", "-o", "out.jpg"]), status: 66, mentions: ["--allow-portrait"])
        XCTAssertFalse(exists("out.jpg"))

        makeFolder("empty")
        assertFailure(try collage(["empty", "-o", "out.jpg"]), status: 66)
        XCTAssertFalse(exists("out.jpg"))

        // --allow-portrait keeps them: the same folder then makes a collage.
        assertSuccess(try collage(["portraits", "--allow-portrait", "-o", "out.jpg"]), stdout: "out.jpg\n")
    }

    // MARK: 73

    func testMissingOutputFolderIs73() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        assertFailure(try collage(["in", "-o", "no-such-folder/out.jpg"]), status: 73, mentions: ["no-such-folder"])
        XCTAssertEqual(listingText(), ["in"])
    }

    func testOutputFolderNotWritableIs73() throws {
        let user = try nonRootUser()
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        makeFolder("readonly", mode: 0o755)  // root's: collage-test cannot write here
        assertFailure(try collage(["in", "-o", "readonly/out.jpg"], as: user), status: 73, mentions: ["readonly"])
        XCTAssertEqual(listing("readonly"), [], "nothing created, no temporary file")
    }

    // MARK: 74

    /// A full disk (a 300 KiB tmpfs, filled): the save fails with 74, the old
    /// output is byte for byte what it was, and no temporary file is left.
    func testFullDiskIs74AndLeavesTheOldOutputAlone() throws {
        let disk = try mountSmallDisk("disk")
        let old = image(palette[3], width: 200, height: 150, suffix: ".png")
        write(old, to: "disk/out.png")
        fillDisk(disk + "/filler")
        let before = listing("disk")

        makeFolder("in")
        for sample in Package.landscapes { copySample(sample, to: "in/" + sample) }
        // Six photos in a 1200x800 PNG: well over a megabyte, far more than is free.
        let result = try collage(["in", "-o", "disk/out.png"])
        assertFailure(result, status: 74, mentions: ["disk/out.png"])
        assertSameBytes(contents("disk/out.png"), old, "the old output is untouched")
        XCTAssertEqual(listing("disk"), before, "no temporary file left (dot files included)")
    }

    // MARK: 130, 143

    func testSIGINTIs130AndLeavesNoPartialOutput() throws {
        try interruptedRun(signal: SIGINT, status: 130)
    }

    func testSIGTERMIs143AndLeavesNoPartialOutput() throws {
        try interruptedRun(signal: SIGTERM, status: 143)
    }

    /// A run over a few hundred hard links to one large noisy JPEG, with
    /// --sheets, is interrupted once its first --json event is out. It must
    /// stop within about two seconds with the status of the signal, one line
    /// on stderr, and leave in its output folder only complete sheets it
    /// reported as written: no temporary file, no partial output.
    private func interruptedRun(signal: Int32, status: Int32) throws {
        makeFolder("big")
        write(try Self.bigNoisyJPEG(), to: "big/0000.jpg")
        for index in 1..<300 { hardLink("big/0000.jpg", b("big/" + String(format: "%04d.jpg", index))) }
        makeFolder("out")

        let process = try RunningProcess(
            arguments: command([b("big"), b("--sheets"), b("--max"), b("24"), b("--json"), b("-o"), b("out/sheet.jpg")]),
            directory: dir)
        let started = process.pump(until: monotonicNow() + 60) { process.hasStdoutLine }
        XCTAssertTrue(started, "the run started (a first event on stdout)")
        let sent = monotonicNow()
        process.send(signal)
        let result = process.wait(timeout: (sent - process.started) + 10)

        XCTAssertFalse(result.timedOut, result.summary)
        XCTAssertEqual(result.status, status, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(all.last?["event"] as? String, "summary", "the summary is still the last line")
        let reported = Set(events(all, "written").compactMap { $0["output"] as? String })
        XCTAssertLessThan(reported.count, 13, "interrupted before the end (300 images, 24 a sheet)")
        for name in listingText("out") {
            XCTAssertFalse(name.hasPrefix("."), "temporary file left: \(name)")
            XCTAssertTrue(reported.contains("out/" + name), "\(name) was not reported as written")
            if let sheet = decoded("out/" + name) {
                XCTAssertEqual([sheet.width, sheet.height], [1200, 800], "\(name) is complete")
            }
        }
    }

    /// 3000x2000 of noise at high quality: slow to decode on purpose.
    static func bigNoisyJPEG() throws -> [UInt8] {
        if let cached = Self.bigJPEG.withLock({ $0 }) { return cached }
        let scratch = "/tmp/collage-cli-big-\(getpid())"
        mkdir(scratch, 0o755)
        defer { _ = try? runProcess([b("rm"), b("-rf"), b(scratch)]) }
        let made = try runProcess([b("vips"), b("gaussnoise"), b(scratch + "/noise.v"), b("3000"), b("2000"),
                                   b("--sigma"), b("80"), b("--mean"), b("128")])
        guard made.status == 0 else { throw SpawnError.system("vips gaussnoise: \(made.stderrText)", 0) }
        let saved = try runProcess([b("vips"), b("copy"), b(scratch + "/noise.v"), b(scratch + "/noise.jpg[Q=95]")])
        guard saved.status == 0 else { throw SpawnError.system("vips copy: \(saved.stderrText)", 0) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch + "/noise.jpg"))
        Self.bigJPEG.withLock { $0 = Array(bytes) }
        return Array(bytes)
    }

    private static let bigJPEG = Mutex<[UInt8]?>(nil)
}

extension CLITestCase {
    /// Mounts a 300 KiB tmpfs at `relative` (root only; skips otherwise),
    /// unmounted when the test ends.
    func mountSmallDisk(_ relative: String) throws -> String {
        guard geteuid() == 0 else { throw XCTSkip("needs root: mounts a small tmpfs to make the disk full") }
        makeFolder(relative)
        let target = path(relative)
        let mounted = try runProcess([b("mount"), b("-t"), b("tmpfs"), b("-o"), b("size=300k,mode=0755"),
                                      b("tmpfs"), b(target)])
        guard mounted.status == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderrText)") }
        addTeardownBlock { _ = try? runProcess([b("umount"), b(target)]) }
        return target
    }

    /// Writes to `file` until the file system says it is full.
    func fillDisk(_ file: String) {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x5a, count: 4096)
        var full = false
        for size in [4096, 512, 1] {
            while true {
                let count = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, size) }
                if count <= 0 { full = errno == ENOSPC; break }
            }
        }
        XCTAssertTrue(full, "the disk is full")
    }
}
