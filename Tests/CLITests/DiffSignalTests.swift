import Foundation
import Glibc
import Vips
import XCTest

/// `--diff` stopped by SIGINT or SIGTERM while it compares: 130 or 143, one
/// line, the summary last, no sheet, no JUnit report, nothing left behind.
final class DiffSignalTests: CLITestCase {
    func testSignalWhileComparing() throws {
        makeFolder("base")
        makeFolder("shots")
        // Noise against a flat picture of another size: a pair takes a
        // debug build over a second to compare (1.6 s of CPU; 3000x2000
        // against 2000x1500 took 20 s), 40 pairs many times that, so
        // the signal comes while pairs are still to be compared.
        write(try ExitStatusTests.noisyJPEG(width: 1200, height: 800), to: "base/000.jpg")
        writeImage(RGB(red: 200, green: 60, blue: 60), to: "shots/000.jpg", width: 800, height: 600, suffix: ".jpg")
        for index in 1..<40 {
            let name = String(format: "%03d.jpg", index)
            hardLink("base/000.jpg", b("base/" + name))
            hardLink("shots/000.jpg", b("shots/" + name))
        }
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let process = try start(["--diff", "base", "--json", "--sheets", "--junit", "junit.xml", "shots",
                                     "-o", "diff-{n}.png"])
            XCTAssertTrue(process.awaitEvent(timeout: 120) { $0["event"] as? String == "compared" }, "a pair was compared")
            process.send(signal)
            let result = process.wait(timeout: 120)
            let all = assertInterrupted(result, status: status)
            XCTAssertLessThan(events(all, "compared").count, 40, "the signal ended the run before its pairs did")
            XCTAssertEqual(listingText().filter { $0.hasPrefix("diff-") || $0 == "junit.xml" }, [])
            assertNoLeftovers()
        }
    }
}
