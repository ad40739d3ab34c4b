import Foundation
import XCTest
@testable import Vips

/// `raw` is pixelmatch's count: its own fixture pairs (copied from its
/// repository, see Tests/Fixtures/pixelmatch/README.md) give the counts its
/// test suite publishes, at the same thresholds.
final class PixelMatchFixtureTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pixelmatch").path

    private func difference(_ a: String, _ b: String, threshold: Double) throws -> Difference {
        let pictures = try [a, b].map { name in
            try withDescriptor("\(fixtures)/\(name).png") { try ImageFile.full(descriptor: $0) }
        }
        var options = DifferenceOptions()
        options.threshold = threshold
        return try Difference.compare(pictures[0], pictures[1], options: options)
    }

    func testRawCountsArePixelmatchs() throws {
        let published: [(String, String, Double, Int)] = [
            ("1a", "1b", 0.05, 143), ("1a", "1b", 0.1, 106), ("2a", "2b", 0.05, 12437),
            ("3a", "3b", 0.05, 212), ("7a", "7b", 0.1, 2448),
        ]
        for (a, b, threshold, count) in published {
            let found = try difference(a, b, threshold: threshold)
            XCTAssertEqual(found.raw, count, "\(a) against \(b) at \(threshold)")
            XCTAssertLessThanOrEqual(found.pixels, found.raw, "the real change is within what pixelmatch counts")
        }
    }

    /// Without the anti-aliasing test (`--count-aa`, pixelmatch's
    /// `includeAA`) every differing pixel counts: 251 for 1a/1b at 0.05, as
    /// pixelmatch 0.4.0 (PyPI) counts with `includeAA=True`.
    func testCountingAntiAliasingCountsMore() throws {
        var options = DifferenceOptions()
        options.threshold = 0.05
        options.countAntiAliased = true
        let pictures = try ["1a", "1b"].map { name in
            try withDescriptor("\(fixtures)/\(name).png") { try ImageFile.full(descriptor: $0) }
        }
        let found = try Difference.compare(pictures[0], pictures[1], options: options)
        XCTAssertEqual(found.raw, 251)
        XCTAssertEqual(found.pixels, 251)
        XCTAssertEqual(found.noise, 0)
    }
}
