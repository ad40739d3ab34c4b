import Foundation
import Glibc
import Vips
import XCTest

/// inputs that are not what they claim (docs/what-happens-when.md): empty and one-byte files, text, HTML, SVG, PDF, PostScript and
/// ImageMagick scripts named like images are `rejected`/`unsupported` and
/// never rendered; FIFOs, sockets, devices and folders with image names
/// never block; dangling links fail; link loops are reported once. (Files
/// and folders that change under a run: ChangingInputTests.)
final class HardeningInputTests: CLITestCase {

    // MARK: - Not what they claim

    /// The disguised files of docs/what-happens-when.md's table, between two good
    /// images, in one folder: each is `rejected`, reason `unsupported`,
    /// exactly once, with one stderr line naming it; the two good images
    /// make the collage and the run ends 0. The SVG is a magenta rectangle
    /// that libvips' own svgload renders (checked with vipsheader): not one
    /// pixel of the collage is magenta. The MSL script, had ImageMagick run
    /// it, would have written a file: it does not exist.
    func testDisguisedFilesAreRejectedAsUnsupportedAndNeverRendered() throws {
        let magenta = RGB(red: 255, green: 0, blue: 255)
        let scriptOutput = path("msl-was-run.png")
        let disguised: [(name: String, bytes: [UInt8])] = [
            ("b-empty.jpg", []),
            ("c-one-byte.jpg", [0xFF]),
            ("d-text.png", b("just some text, not an image\n")),
            ("e-page.jpg", Fixture.html),
            ("f-vector.jpg", Fixture.svg(magenta)),
            ("g-document.jpg", Fixture.pdf()),
            ("h-print.jpg", Fixture.postScript),
            ("i-drawing.jpg", Fixture.mvg),
            ("j-script.jpg", b("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<image>\n<read filename=\"\(path("in/a.png"))\"/>\n"
                                + "<write filename=\"\(scriptOutput)\"/>\n</image>\n")),
        ]
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        for (name, bytes) in disguised { write(bytes, to: "in/" + name) }
        writeImage(palette[2], to: "in/z.png")

        // The SVG and the PDF are real: libvips would render them if it were let.
        if haveProgram("vipsheader") {
            for (name, loader) in [("f-vector.jpg", "svgload"), ("g-document.jpg", "pdfload")] {
                let header = try runProcess([b("vipsheader"), b(path("in/" + name))])
                if header.status == 0 {
                    XCTAssertTrue(header.stdoutText.contains(loader), "the fixture is a real \(loader) file: \(header.stdoutText)")
                } else {
                    print("note: this libvips has no \(loader): \(header.stderrText)")
                }
            }
        }

        let result = try collage(["in", "--json", "-v", "-o", "out.png"], timeout: 30)
        XCTAssertFalse(result.timedOut, result.summary)
        XCTAssertEqual(result.status, 0, result.summary)
        let all = jsonEvents(result)
        for (name, _) in disguised {
            XCTAssertEqual(verdicts(all, "in/" + name), ["rejected:unsupported"], name)
            XCTAssertEqual(result.stderrLines.filter { $0.contains("skipped in/" + name) }.count, 1,
                           "one stderr line (-v) names \(name)\n\(result.summary)")
        }
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png", "in/z.png"])
        XCTAssertEqual(all.last?["rejected"] as? Int, disguised.count)
        XCTAssertEqual(all.last?["failed"] as? Int, 0)
        XCTAssertFalse(exists(scriptOutput), "the MSL script was never run")
        guard let picture = decoded("out.png") else { return }
        assertTiles(picture, [palette[0], palette[2]], tolerance: 0)
        XCTAssertEqual(pixels(of: picture, near: magenta, tolerance: 60, step: 1), 0, "no trace of the SVG")

        // Named explicitly (always tried, whatever the name), on the command
        // line and on standard input: the same verdicts.
        let names = disguised.map { "in/" + $0.name }
        let explicit = try collage(["in/a.png"] + names + ["--json", "-o", "explicit.png"], timeout: 30)
        let piped = try collage(["-", "--json", "-o", "piped.png"],
                                stdin: b((["in/a.png"] + names).joined(separator: "\n") + "\n"), timeout: 30)
        for run in [explicit, piped] {
            XCTAssertEqual(run.status, 0, run.summary)
            let events = jsonEvents(run)
            for name in names { XCTAssertEqual(verdicts(events, name), ["rejected:unsupported"], name) }
        }
        XCTAssertFalse(exists(scriptOutput))
    }

    /// FIFOs, sockets, devices (made with mknod as root: /dev/null's and
    /// /dev/zero's numbers, and 0:0, which no driver answers), links to
    /// /dev/zero and /dev/urandom, and a folder, all with image names: in a
    /// folder walk, named on the command line and named on standard input,
    /// the run ends (one that read such a file would wait on it for ever:
    /// the runner's deadline is only a hang guard), each is
    /// `rejected`/`unsupported` once (the folder is walked, it holds
    /// nothing), and the one good image is used, exit 0.
    func testSpecialFilesWithImageNamesNeverBlock() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        XCTAssertEqual(mkfifo(path("in/fifo.jpg"), 0o644), 0)
        XCTAssertTrue(makeUnixSocket(at: path("in/socket.png")), "a UNIX socket")
        symbolicLink("/dev/zero", "in/zero-link.jpg")
        symbolicLink("/dev/urandom", "in/urandom-link.webp")
        makeFolder("in/folder.jpg")
        var special = ["in/fifo.jpg", "in/socket.png", "in/zero-link.jpg", "in/urandom-link.webp"]
        if geteuid() == 0 {
            for (name, major, minor) in [("in/null-device.png", 1, 3), ("in/zero-device.gif", 1, 5),
                                         ("in/no-driver.jpg", 0, 0)] {
                if makeCharacterDevice(at: path(name), major: UInt32(major), minor: UInt32(minor)) {
                    special.append(name)
                } else {
                    print("note: mknod \(name): \(String(cString: strerror(errno)))")
                }
            }
        }

        let walked = try collage(["in", "--json", "-o", "walked.png"])
        let named = try collage(special + ["in/folder.jpg", "in/a.png", "--json", "-o", "named.png"])
        let piped = try collage(["-", "--json", "-o", "piped.png"],
                                stdin: b((special + ["in/folder.jpg", "in/a.png"]).joined(separator: "\n") + "\n"))
        for (how, result) in [("in a folder", walked), ("on the command line", named), ("on standard input", piped)] {
            XCTAssertFalse(result.timedOut, "\(how): blocked on a special file\n\(result.summary)")
            XCTAssertEqual(result.status, 0, "\(how)\n\(result.summary)")
            let all = jsonEvents(result)
            for name in special {
                XCTAssertEqual(verdicts(all, name), ["rejected:unsupported"], "\(how): \(name)\n\(result.summary)")
            }
            XCTAssertEqual(verdicts(all, "in/folder.jpg"), [], "\(how): a folder is walked, not an image")
            XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png"], how)
        }
    }

    /// A dangling link named like an image: `failed` ("dangling symbolic
    /// link"), one stderr line naming it, the others used, 65.
    func testDanglingSymbolicLinkFails() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        symbolicLink("no-such-target.jpg", "in/b.jpg")
        writeImage(palette[1], to: "in/c.png")
        let result = try collage(["in", "--json", "-o", "out.png"])
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(verdicts(all, "in/b.jpg"), ["failed"])
        XCTAssertTrue((events(all, "failed").first?["error"] as? String ?? "").contains("dangling symbolic link"))
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png", "in/c.png"])
        XCTAssertEqual(result.stderrLines.filter { $0.contains("in/b.jpg") }.count, 1, result.summary)
        XCTAssertEqual(result.stderrLines.count, 2, "the link's line and the exit's line\n\(result.summary)")
    }

    /// Under --follow-links: a link to an ancestor folder, a link to the
    /// root, a link to itself and two links to each other (named like
    /// images). Each is `failed` exactly once, the run ends, the
    /// real images are used once each, 65.
    func testSymbolicLinkLoopsAreReportedOnceUnderFollowLinks() throws {
        makeFolder("tree")
        makeFolder("tree/a")
        makeFolder("tree/a/b")
        writeImage(palette[0], to: "tree/a/1.png")
        writeImage(palette[1], to: "tree/a/b/2.png")
        symbolicLink("..", "tree/a/b/up")
        symbolicLink("../..", "tree/a/b/to-root")
        symbolicLink("self.jpg", "tree/self.jpg")
        symbolicLink("pong.jpg", "tree/ping.jpg")
        symbolicLink("ping.jpg", "tree/pong.jpg")
        let result = try collage(["tree", "--follow-links", "--json", "-o", "out.png"])
        XCTAssertFalse(result.timedOut, "ends, never follows the loop for ever\n\(result.summary)")
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        for link in ["tree/a/b/up", "tree/a/b/to-root"] {
            XCTAssertEqual(verdicts(all, link), ["failed"], link)
            XCTAssertTrue(all.contains { field($0, "path") == link && (field($0, "error") ?? "").contains("symbolic link loop") },
                          "\(link) is reported as a loop\n\(result.summary)")
        }
        for link in ["tree/self.jpg", "tree/ping.jpg", "tree/pong.jpg"] {
            XCTAssertEqual(verdicts(all, link), ["failed"], link)
        }
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["tree/a/1.png", "tree/a/b/2.png"])
        XCTAssertEqual(all.last?["failed"] as? Int, 5)
    }

    /// Two folders linking to each other (not to an ancestor): the walk
    /// still ends, each link is reported at most once, and no image path is
    /// used twice. (Each image is reached by two different paths, as with
    /// `find -L`.)
    func testMutuallyLinkedFoldersEnd() throws {
        makeFolder("tree")
        makeFolder("tree/a")
        makeFolder("tree/b")
        writeImage(palette[0], to: "tree/a/1.png")
        writeImage(palette[1], to: "tree/b/2.png")
        symbolicLink("../b", "tree/a/to-b")
        symbolicLink("../a", "tree/b/to-a")
        let result = try collage(["tree", "--follow-links", "--sheets", "--json", "-o", "out.png"])
        XCTAssertFalse(result.timedOut, "ends, never follows the loop for ever\n\(result.summary)")
        let all = jsonEvents(result)
        let reported = events(all, "failed").compactMap { field($0, "path") }
        XCTAssertEqual(reported.count, Set(reported).count, "each loop reported once: \(reported)")
        XCTAssertFalse(reported.isEmpty, "the loop is reported")
        let images = events(all, "written").flatMap { $0["images"] as? [String] ?? [] }
        XCTAssertEqual(images.count, Set(images).count, "no path used twice: \(images)")
        print("mutually linked folders: used \(images), reported \(reported)")
    }
}
