import Foundation
import Glibc
import Vips
import XCTest

/// A run that orders or groups by time, stopped by SIGTERM or SIGINT
/// during its header pass: 143 or 130, one line, the old output untouched,
/// nothing left behind, and the header pass cut short.
final class TimeSignalTests: CLITestCase {
    func testASignalDuringTheHeaderPassEndsTheRunAndWritesNothing() throws {
        makeFolder("pics")
        write(image(palette[0], width: 640, height: 480, suffix: ".jpg"), to: "pics/00000.jpg")
        for index in 1..<3000 { hardLink("pics/00000.jpg", b("pics/" + String(format: "%05d.jpg", index))) }
        write(image(palette[1], suffix: ".png"), to: "old.png")
        let old = contents("old.png") ?? []
        let runs: [([String], Int32, Int32)] = [(["--sort", "taken", "-o", "old.png"], SIGTERM, 143),
                                                (["--group-by", "day", "--sheets", "-o", "old.png"], SIGINT, 130)]
        for (arguments, signal, status) in runs {
            let process = try start(["pics", "--json"] + arguments)
            XCTAssertTrue(process.awaitEvent(timeout: 120) { $0["event"] as? String == "accepted" }, "the header pass began")
            process.send(signal)
            let result = process.wait(timeout: 120)
            let all = assertInterrupted(result, status: status)
            XCTAssertLessThan(events(all, "accepted").count, 3000, "the signal cut the header pass short")
            XCTAssertEqual(events(all, "written").count, 0)
            assertSameBytes(contents("old.png"), old, "the old output is untouched")
            XCTAssertEqual(listingText().sorted(), ["old.png", "pics"])
            assertNoLeftovers()
        }
    }
}
