import Foundation
import Glibc
import XCTest

/// The contract, "Exit status", for runs that write nothing: 66 (nothing
/// to do), 73 (an output cannot be created), 74 (an I/O error while
/// writing), each asserting standard output, standard error and the
/// status exactly, and that the old output is left alone.
final class ExitStatusFailureTests: CLITestCase {
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
}
