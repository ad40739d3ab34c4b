import Foundation
import Glibc
import XCTest
@testable import CollageKit

/// The pieces of `--diff` that need no run: the order of pairs, the
/// tolerance, the pairing of two trees by their bytes.
final class DiffPairingTests: XCTestCase {
    func testOrderIsTheWalksComponentByComponent() {
        let paths = ["b.png", "a/z.png", "a.png", "a-b.png", "a/b/c.png", "A.png"].map { Array($0.utf8) }
        // A folder's files come where its name does: "a" before "a-b.png" and "a.png".
        XCTAssertEqual(paths.sorted(by: PairOrder.precedes).map { String(decoding: $0, as: UTF8.self) },
                       ["A.png", "a/b/c.png", "a/z.png", "a-b.png", "a.png", "b.png"])
    }

    func testTolerance() {
        XCTAssertEqual(Tolerance("12"), .pixels(12))
        XCTAssertEqual(Tolerance("0.5%"), .percent(0.5))
        XCTAssertNil(Tolerance("-1"))
        XCTAssertNil(Tolerance("101%"))
        XCTAssertNil(Tolerance("x"))
        XCTAssertFalse(Tolerance.pixels(0).exceeded(by: 0, of: 100))
        XCTAssertTrue(Tolerance.pixels(0).exceeded(by: 1, of: 100))
        XCTAssertFalse(Tolerance.pixels(5).exceeded(by: 5, of: 100))
        XCTAssertFalse(Tolerance.percent(1).exceeded(by: 1, of: 100))
        XCTAssertTrue(Tolerance.percent(1).exceeded(by: 2, of: 100))
    }

    func testTwoTreesPairByTheirBytes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("diff-pairs-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let odd: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".png".utf8)
        for folder in ["/now", "/now/sub", "/then", "/then/sub"] {
            try FileManager.default.createDirectory(atPath: root + folder, withIntermediateDirectories: true)
        }
        for file in [Array("/now/a.png".utf8), Array("/now/sub/new.png".utf8), Array("/now/".utf8) + odd,
                     Array("/then/a.png".utf8), Array("/then/sub/gone.png".utf8), Array("/then/".utf8) + odd] {
            let path = Array(root.utf8) + file + [0]
            let descriptor = path.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
            close(descriptor)
        }
        let pairing = DiffPairing(inputs: [.path(PathName(root + "/now"))], baseline: PathName(root + "/then"),
                                  followLinks: false, nulSeparated: false, rules: ScanRules())
        let (pairs, walked) = pairing.pairs(shouldStop: { false }, report: { _ in })
        XCTAssertEqual(pairs.map(\.relative.bytes), [Array("a.png".utf8), odd, Array("sub/gone.png".utf8),
                                                     Array("sub/new.png".utf8)])
        XCTAssertEqual(pairs.map { [$0.inCurrent, $0.inBaseline] }, [[true, true], [true, true], [false, true], [true, false]])
        XCTAssertEqual(pairs[1].baseline.bytes, Array((root + "/then/").utf8) + odd)
        XCTAssertEqual(pairs[2].current, PathName(root + "/now/sub/gone.png"))
        XCTAssertEqual(walked.count, 6)
    }
}

/// What comparing a pair costs the decode budget: both pictures whole, at
/// full size, never a thumbnail's share; nothing for identical bytes.
final class PairComparisonCostTests: XCTestCase {
    func testTheBudgetCountsBothFullPictures() throws {
        let folder = try TemporaryDirectory()
        try writeFlatImage(folder("a.png"), .white, width: 1920, height: 1080)
        try writeFlatImage(folder("b.png"), .black, width: 1920, height: 1080)
        let probe = Probe(maxPixels: .max, allowPortrait: true)
        let comparison = PairComparison(probe: probe, settings: DiffSettings(baseline: folder("base")))
        let pair = DiffPair(relative: PathName("a.png"), current: folder("a.png"), baseline: folder("b.png"),
                            inCurrent: true, inBaseline: true)
        let opened = comparison.open(pair, report: { XCTFail("nothing to report: \($0)") })
        XCTAssertFalse(opened.identical)
        XCTAssertGreaterThanOrEqual(PairComparison.cost(opened).running, 2 * 1920 * 1080 * 3 + 1920 * 1080 * 2)
        let same = DiffPair(relative: PathName("a.png"), current: folder("a.png"), baseline: folder("a.png"),
                            inCurrent: true, inBaseline: true)
        let identical = comparison.open(same, report: { _ in })
        XCTAssertTrue(identical.identical)
        XCTAssertEqual(PairComparison.cost(identical), .free)
        guard case .compared(let result) = comparison.compare(opened) else { return XCTFail("compared") }
        XCTAssertEqual(result.status, .changed)
        XCTAssertEqual(result.pixels, 1920 * 1080)
    }
}
