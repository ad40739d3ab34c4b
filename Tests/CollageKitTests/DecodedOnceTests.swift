import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// A picture is decoded once per sheet: each tile is placed as it was
/// decoded. The run's own count of the decodes it began (re-decodes
/// included) says how many there were.
final class DecodedOnceTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func makePhotos(_ count: Int) throws -> PathName {
        let inputs = folder("in")
        try makeDirectory(inputs)
        for index in 0..<count {
            try writeFlatImage(inputs.appending(Array(String(format: "%02d.jpg", index).utf8)),
                               RGB(red: UInt8(index * 20), green: 100, blue: 200), suffix: ".jpg")
        }
        return inputs
    }

    private func configuration(_ inputs: PathName, max: Int, output: String) -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: [.path(inputs)])
        (configuration.canvasWidth, configuration.canvasHeight) = (600, 400)
        configuration.jobs = 2
        configuration.maxImages = max
        configuration.output = folder(output)
        return configuration
    }

    func testOneCollageOfFewerImagesThanMaxDecodesEachOnce() throws {
        let inputs = try makePhotos(4)
        let configuration = configuration(inputs, max: 6, output: "out.png")
        // What makes it a test: four images do not sit in the frames of a full sheet's first four slots.
        let layout = configuration.layout, canvas = configuration.canvas
        XCTAssertTrue(layout.placesByCount)
        XCTAssertNotEqual(layout.layOut(Array(repeating: .unknown, count: 4), on: canvas).frames.map(\.image),
                          Array(layout.layOut(Array(repeating: .unknown, count: 6), on: canvas).frames.prefix(4).map(\.image)))
        let (result, counts) = runCollageCounted(configuration)
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertEqual(result.written.first?.images.count, 4)
        XCTAssertEqual(counts.decodes, 4, "each image decoded once, to its own frame")
    }

    func testFullSheetsDecodeEachImageOnce() throws {
        let inputs = try makePhotos(6)
        var configuration = configuration(inputs, max: 3, output: "sheet-{n}.png")
        configuration.sheets = true
        let (result, counts) = runCollageCounted(configuration)
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertEqual(result.written.map(\.images.count), [3, 3])
        XCTAssertEqual(counts.decodes, 6)
    }

    /// The one re-decode kept, for its reason: with --sheets the decodes run
    /// ahead to a full sheet's frames before the walk says where the input
    /// ends; the shorter last sheet's image is decoded again to its own
    /// frame (counted like any decode), the full sheets' are not.
    func testOnlyAShorterLastSheetsImagesAreDecodedAgain() throws {
        let inputs = try makePhotos(7)
        var configuration = configuration(inputs, max: 3, output: "sheet-{n}.png")
        configuration.sheets = true
        let (result, counts) = runCollageCounted(configuration)
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertEqual(result.written.map(\.images.count), [3, 3, 1])
        XCTAssertEqual(counts.decodes, 7 + 1)
    }
}
