import Foundation
import Glibc
import Vips
import XCTest

/// `--require-even`: a collage is saved only with an even number
/// of photos; an odd set loses its last image (with a notice naming it) and
/// an odd --max rounds down.
final class RequireEvenTests: CLITestCase {
    private func makeImages(_ count: Int, in folder: String = "in") {
        makeFolder(folder)
        for index in 0..<count { writeImage(palette[index], to: "\(folder)/\(index).png") }
    }

    /// Five eligible, default --max 6: four used, a notice names the fifth.
    func testFiveImagesMakeFour() throws {
        makeImages(5)
        assertSuccess(try collage(["in", "--require-even", "-o", "out.png"]), stdout: "out.png\n")
        let result = try collage(["in", "--require-even", "-v", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "out.png\n")
        XCTAssertEqual(result.stderrLines.filter { $0.contains("in/4.png") && !$0.contains("accepted") }.count, 1,
                       "-v: the notice names the dropped image\n\(result.summary)")
        if let picture = decoded("out.png") {
            assertTiles(picture, Array(palette[0..<4]), tolerance: 2)
        }

        let json = try collage(["in", "--require-even", "--json", "-o", "out.png"])
        let all = assertValidEventStream(json, "--require-even")
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], (0..<4).map { "in/\($0).png" })
        XCTAssertEqual(all.last?["used"] as? Int, 4)
        XCTAssertTrue(events(all, "notice").contains { ($0["message"] as? String)?.contains("in/4.png") == true })
    }

    /// --max 5 rounds down to 4.
    func testOddMaxRoundsDown() throws {
        makeImages(5)
        let json = try collage(["in", "--max", "5", "--require-even", "--json", "-o", "out.png"])
        XCTAssertEqual(json.status, 0, json.summary)
        let all = assertValidEventStream(json, "--max 5 --require-even")
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], (0..<4).map { "in/\($0).png" })
        if let picture = decoded("out.png") { assertTiles(picture, Array(palette[0..<4]), tolerance: 2) }
    }

    func testMaxOneIsAUsageError() throws {
        makeImages(2)
        assertFailure(try collage(["in", "--max", "1", "--require-even", "-o", "out.png"]), status: 64,
                      mentions: ["--require-even"])
        XCTAssertFalse(exists("out.png"))
    }

    /// An even set is saved whole, and nothing is said.
    func testAnEvenSetIsKept() throws {
        makeImages(4)
        assertSuccess(try collage(["in", "--require-even", "-o", "out.png"]), stdout: "out.png\n")
        if let picture = decoded("out.png") { assertTiles(picture, Array(palette[0..<4]), tolerance: 2) }
    }

    /// --sheets --max 3: sheets of two; the odd last image is left out.
    func testSheets() throws {
        makeImages(7)
        let result = try collage(["in", "--require-even", "--sheets", "--max", "3", "-v", "-o", "s.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "s-0001.png\ns-0002.png\ns-0003.png\n")
        XCTAssertTrue(result.stderrLines.contains { $0.contains("in/6.png") && !$0.contains("accepted") }, result.summary)
        for sheet in 0..<3 {
            if let picture = decoded("s-000\(sheet + 1).png") {
                assertTiles(picture, [palette[sheet * 2], palette[sheet * 2 + 1]], tolerance: 2)
            }
        }
    }

    /// One eligible image: nothing can be saved; 66, nothing written.
    func testASingleImageCannotBeSaved() throws {
        makeImages(1)
        let result = try collage(["in", "--require-even", "-v", "-o", "out.png"])
        XCTAssertEqual(result.status, 66, result.summary)
        XCTAssertEqual(result.stdout, [])
        XCTAssertTrue(result.stderrLines.dropLast().contains { $0.contains("in/0.png") && !$0.contains("accepted") },
                      "-v tells the dropped image\n\(result.summary)")
        XCTAssertFalse(exists("out.png"))
    }
}
