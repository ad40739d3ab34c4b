import Glibc
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
}
