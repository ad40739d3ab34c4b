import Glibc
import Locking
import XCTest
@testable import CollageKit
@testable import Vips

/// The walk is walked once: after the cap, the look for what it left out
/// goes on from where the walk stopped, so no folder is read twice (the
/// run counts each `opendir` of its walk).
final class WalkedOnceTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// in/a, in/b, in/c, two images each.
    private func makeTree() throws -> PathName {
        let inputs = folder("in")
        try makeDirectory(inputs)
        for (index, name) in ["a", "b", "c"].enumerated() {
            let sub = inputs.appending(Array(name.utf8))
            try makeDirectory(sub)
            for image in 0..<2 {
                try writeFlatImage(sub.appending(Array("\(image).png".utf8)),
                                   RGB(red: UInt8(index * 60), green: UInt8(image * 100), blue: 50))
            }
        }
        return inputs
    }

    private func configuration(_ inputs: PathName, max: Int) -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: [.path(inputs)])
        (configuration.canvasWidth, configuration.canvasHeight) = (300, 200)
        configuration.maxImages = max
        configuration.output = folder("out.png")
        return configuration
    }

    func testTheLookPastTheCapGoesOnFromWhereTheWalkStopped() throws {
        let inputs = try makeTree()
        // The cap is reached at the end of in/a: the look past it reads in/b, once.
        let (result, counts) = runCollageCounted(configuration(inputs, max: 2))
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertEqual(result.written.first?.images.count, 2)
        let notices = result.events.compactMap { if case .notice(let text) = $0 { text } else { nil } }
        XCTAssertEqual(notices.filter { $0.contains("left out") }.count, 1, "the look past the cap found more: \(notices)")
        let listed = counts.listings.mapValues { $0 }
        XCTAssertEqual(listed, [inputs.bytes: 1, inputs.appending(Array("a".utf8)).bytes: 1,
                                inputs.appending(Array("b".utf8)).bytes: 1],
                       "each folder read once, none past the one where an image was found")
    }

    func testAWholeWalkReadsEachFolderOnce() throws {
        let inputs = try makeTree()
        var configuration = configuration(inputs, max: 2)
        configuration.sheets = true
        configuration.output = folder("sheet-{n}.png")
        let (result, counts) = runCollageCounted(configuration)
        XCTAssertEqual(result.written.count, 3)
        XCTAssertEqual(counts.listings.count, 4)
        XCTAssertEqual(Set(counts.listings.values), [1])
    }

    /// `--per-folder`: the walk of folders reads each folder once and hands
    /// its listing to the folder's own run, which does not read it again.
    func testPerFolderReadsEachFolderOnce() throws {
        let inputs = try makeTree()
        var configuration = configuration(inputs, max: 6)
        configuration.output = folder("{dir}.png")
        let listings = Locked<[[UInt8]: Int]>([:])
        let count: @Sendable (PathName) -> Void = { path in listings.withLock { $0[path.bytes, default: 0] += 1 } }
        let passes = FolderPasses(configuration, listed: count) { CollageRun(configuration: $0) }
        var outputs = 0
        while let pass = passes.next(report: { _ in }).pass, let run = pass.job as? CollageRun {
            let outcome = run.run()
            XCTAssertTrue([.success, .noInput].contains(outcome.status), outcome.message ?? "")
            if outcome.status == .success { outputs += 1 }
            for (path, times) in run.instrumentation.snapshot.listings {
                listings.withLock { $0[path, default: 0] += times }
            }
        }
        XCTAssertEqual(outputs, 3, "in/ holds no image of its own; a, b and c do")
        let folders = [inputs] + ["a", "b", "c"].map { inputs.appending(Array($0.utf8)) }
        XCTAssertEqual(listings.withLock { $0 }, Dictionary(uniqueKeysWithValues: folders.map { ($0.bytes, 1) }))
    }
}
