import Foundation
import Glibc
import XCTest

/// `-o NAME.pdf` when things go wrong: the previous PDF is never touched
/// and nothing is left beside it.
final class PrintFailureTests: CLITestCase {
    /// A folder that does not exist: 73, before any image is read.
    func testMissingFolderIs73() throws {
        printInputs()
        assertFailure(try collage(["--page", "A4", "in", "-o", "nowhere/book.pdf"]), status: 73, mentions: ["nowhere"])
    }

    /// A disk that fills up while the PDF is being written (a 300 KiB
    /// tmpfs, after some pages went in): 74, the old PDF byte for byte as
    /// it was, no temporary file.
    func testFullDiskMidPDFIs74AndKeepsTheOldPDF() throws {
        try requirePoppler()
        let disk = try mountSmallDisk("disk")
        printInputs(copies: 5)
        XCTAssertEqual(try collage(["--page", "40x30mm", "--max", "1", "in/p1.jpg", "-o", "disk/book.pdf"]).status, 0)
        let old = contents("disk/book.pdf") ?? []
        XCTAssertEqual(try pdfInfo(disk + "/book.pdf").pages, 1)
        let before = listing("disk")

        // Thirty pages of about 25 KiB each: the disk is full part-way.
        let result = try collage(["--sheets", "--max", "1", "--page", "60x40mm", "--quality", "90", "in",
                                  "-o", "disk/book.pdf", "--json"])
        XCTAssertEqual(result.status, 74, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        XCTAssertTrue(result.stderrText.contains("disk/book.pdf") && result.stderrText.contains("No space left"),
                      result.summary)
        XCTAssertGreaterThan(events(jsonEvents(result), "written").count, 0, "pages went in before the disk was full")
        XCTAssertEqual(events(jsonEvents(result), "document").count, 0)
        assertSameBytes(contents("disk/book.pdf"), old, "the old PDF is untouched")
        XCTAssertEqual(listing("disk"), before, "no temporary file left (dot files included)")
    }

    /// SIGTERM once a page is in the PDF, with more to come: 143, the old
    /// PDF as it was, no temporary file, no `document`.
    func testSIGTERMMidPDFIs143AndKeepsTheOldPDF() throws {
        makeFolder("big")
        write(try ExitStatusTests.bigNoisyJPEG(), to: "big/000.jpg")
        for index in 1..<24 { hardLink("big/000.jpg", b(String(format: "big/%03d.jpg", index))) }
        makeFolder("out")
        let old = Array("%PDF-1.4 an older book\n".utf8)
        write(old, to: "out/book.pdf")

        let process = try start(["big", "--sheets", "--max", "2", "--page", "A5", "-o", "out/book.pdf", "--json"])
        guard process.awaitEvent(timeout: 120, { field($0, "event") == "written" }) else {
            XCTFail("no page was written\n\(process.wait(timeout: 120).summary)")
            return
        }
        process.send(SIGTERM)
        let result = process.wait(timeout: 120)
        XCTAssertEqual(result.status, 143, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        let all = jsonEvents(result)
        XCTAssertLessThan(events(all, "written").count, 12, "the signal ended the run before its input did")
        XCTAssertEqual(events(all, "document").count, 0)
        XCTAssertEqual(all.last?["event"] as? String, "summary")
        assertSameBytes(contents("out/book.pdf"), old, "the old PDF is untouched")
        XCTAssertEqual(listingText("out"), ["book.pdf"])
        assertNoLeftovers("out")
    }
}
