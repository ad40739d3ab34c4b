import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// Whole runs of the pipeline: portrait selection on the displayed size,
/// the cap, sheets, and what happens to broken inputs.
final class CollageRunTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let colours = LayoutPipelineTests.colours

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func configuration(_ inputs: [Input], output: String = "out.png") -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: inputs)
        configuration.canvasWidth = 300
        configuration.canvasHeight = 200
        configuration.jobs = 2
        configuration.output = folder(output)
        return configuration
    }

    private var accepted: (RunResult) -> [PathName] {
        { result in result.events.compactMap { if case .accepted(let path, _) = $0 { return path } else { return nil } } }
    }

    // MARK: - Portrait

    /// a: landscape; b: stored landscape, orientation 6 (displayed portrait);
    /// c: stored portrait; d: stored portrait, orientation 6 (displayed landscape).
    private func makeOrientedInputs() throws -> (PathName, [PathName]) {
        let inputs = folder("oriented")
        try makeDirectory(inputs)
        let specs: [(String, Int, Int, Int)] = [("a.jpg", 1, 60, 40), ("b.jpg", 6, 40, 60),
                                                ("c.jpg", 1, 40, 60), ("d.jpg", 6, 60, 40)]
        var paths: [PathName] = []
        for (name, orientation, displayedWidth, displayedHeight) in specs {
            let path = inputs.appending(Array(name.utf8))
            let stored = Marker.stored(orientation: orientation, displayedWidth: displayedWidth,
                                       displayedHeight: displayedHeight)
            try writeFile(Encoder.encode(stored, suffix: ".jpg[Q=95]", orientation: orientation).bytes, to: path)
            paths.append(path)
        }
        return (inputs, paths)
    }

    private func checkUpright(_ pixels: PixelBuffer, tile rect: TileRect, _ what: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        let points = [(1, 1, Marker.topLeft), (3, 1, Marker.topRight), (1, 3, Marker.bottomLeft), (3, 3, Marker.bottomRight)]
        for (qx, qy, colour) in points {
            let x = rect.x + qx * rect.width / 4, y = rect.y + qy * rect.height / 4
            XCTAssertColour(pixels.pixel(x: x, y: y), colour, tolerance: 8, "\(what) at (\(x),\(y))", file: file, line: line)
        }
    }

    func testPortraitIsRejectedOnTheDisplayedSize() throws {
        let (inputs, paths) = try makeOrientedInputs()
        let result = runCollage(configuration([.path(inputs)]))
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertEqual(result.rejected.map(\.path), [paths[1], paths[2]])
        XCTAssertEqual(result.rejected.map(\.reason), [.portrait, .portrait])
        XCTAssertEqual(result.written.first?.images, [paths[0], paths[3]])
        XCTAssertEqual(result.outcome.summary.rejected, 2)
        XCTAssertEqual(result.outcome.summary.used, 2)

        // The rejected event in --json form names the reason.
        let line = result.events.first { if case .rejected = $0 { return true } else { return false } }
            .map(JSONEvents.line(for:))
        let object = try XCTUnwrap(line.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        XCTAssertEqual(object["event"] as? String, "rejected")
        XCTAssertEqual(object["reason"] as? String, "portrait")
        XCTAssertEqual(object["path"] as? String, paths[1].description)

        // Two tiles of 150x200, both pictures upright (d was stored on its side).
        let pixels = try readPixels(folder("out.png"))
        checkUpright(pixels, tile: TileRect(x: 0, y: 0, width: 150, height: 200), "a")
        checkUpright(pixels, tile: TileRect(x: 150, y: 0, width: 150, height: 200), "d")
    }

    func testProbeDecidesOnTheDisplayedSizeForEveryOrientation() throws {
        let probe = Probe(maxPixels: 1_000_000, allowPortrait: false)
        let allowing = Probe(maxPixels: 1_000_000, allowPortrait: true)
        var verdicts = (accepted: 0, rejected: 0)
        for orientation in 1...8 {
            for (storedWidth, storedHeight) in [(60, 40), (40, 60)] {
                let swaps = orientation >= 5
                let (dw, dh) = swaps ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
                let path = folder("probe-\(orientation)-\(storedWidth)x\(storedHeight).jpg")
                try writeFile(Encoder.encode(Marker.stored(orientation: orientation, displayedWidth: dw, displayedHeight: dh),
                                             suffix: ".jpg", orientation: orientation).bytes, to: path)
                let what = "orientation \(orientation), stored \(storedWidth)x\(storedHeight)"
                switch probe.check(path) {
                case .success(let image):
                    XCTAssertLessThanOrEqual(dh, dw, "\(what): accepted, so displayed landscape")
                    verdicts.accepted += 1
                    XCTAssertEqual(image.header.orientation, orientation, what)
                case .failure(.rejected(.portrait, let detail)):
                    XCTAssertGreaterThan(dh, dw, "\(what): rejected, so displayed portrait")
                    verdicts.rejected += 1
                    XCTAssertEqual(detail, "\(dw)x\(dh)", what)
                case .failure(let other):
                    XCTFail("\(what): \(other)")
                }
                guard case .success = allowing.check(path) else { return XCTFail("\(what): --allow-portrait keeps it") }
            }
        }
        XCTAssertEqual(verdicts.accepted, 8, "1-4 stored landscape, 5-8 stored portrait")
        XCTAssertEqual(verdicts.rejected, 8)
    }

    func testAllowPortraitKeepsThemUpright() throws {
        let (inputs, paths) = try makeOrientedInputs()
        var configuration = configuration([.path(inputs)])
        configuration.allowPortrait = true
        let result = runCollage(configuration)
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertTrue(result.rejected.isEmpty)
        XCTAssertEqual(result.written.first?.images, paths)
        let pixels = try readPixels(folder("out.png"))
        let layout = SeedGrid(count: 4, canvasWidth: 300, canvasHeight: 200)
        for (index, name) in ["a", "b", "c", "d"].enumerated() {
            checkUpright(pixels, tile: layout.tile(index), name)
        }
    }

    func testSquareIsKept() throws {
        let path = folder("square.png")
        try writeFlatImage(path, colours[0], width: 40, height: 40)
        let result = runCollage(configuration([.path(path)]))
        XCTAssertEqual(result.outcome.status, .success)
        XCTAssertEqual(result.written.first?.images, [path])
    }

    // MARK: - The cap

    /// `count` flat images img-0.png ... in a new folder, then z.jpg, a dangling
    /// link the walk reports as failed if it ever gets there.
    private func makeCappedFolder(_ count: Int) throws -> (PathName, [PathName]) {
        let inputs = folder("many")
        try makeDirectory(inputs)
        var paths: [PathName] = []
        for index in 0..<count {
            let path = inputs.appending(Array("img-\(index).png".utf8))
            try writeFlatImage(path, colours[index])
            paths.append(path)
        }
        try makeSymlink(inputs.appending(Array("z.jpg".utf8)), to: "missing.jpg")
        return (inputs, paths)
    }

    func testTheScanStopsAtTheCap() throws {
        // Six images, then a dangling link: with --max 6 the run must not get there.
        let (inputs, paths) = try makeCappedFolder(6)
        let result = runCollage(configuration([.path(inputs)]))
        XCTAssertEqual(result.written.first?.images, paths)
        XCTAssertEqual(result.failed.map(\.path), [], "nothing past the sixth image is visited")
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
    }

    func testNoImageBeyondTheCapIsAccepted() throws {
        let (inputs, paths) = try makeCappedFolder(8)
        let result = runCollage(configuration([.path(inputs)]))
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertEqual(result.written.map(\.images), [Array(paths.prefix(6))])
        XCTAssertEqual(accepted(result), Array(paths.prefix(6)), "the scan goes no further than the cap")
        XCTAssertEqual(result.failed.map(\.path), [])
        let notices = result.events.compactMap { if case .notice(let text) = $0 { return text } else { return nil } }
        XCTAssertEqual(notices.count, 1, "the 'limit reached' notice: \(notices)")
        XCTAssertTrue(notices.first?.contains("--sheets") ?? false, notices.first ?? "")
    }

    func testSheetsCutTheWholeInput() throws {
        let (inputs, paths) = try makeCappedFolder(5)
        var configuration = configuration([.path(inputs)], output: "sheet-{n}.png")
        configuration.sheets = true
        configuration.maxImages = 2
        let result = runCollage(configuration)
        XCTAssertEqual(result.written.map(\.images), [[paths[0], paths[1]], [paths[2], paths[3]], [paths[4]]])
        XCTAssertEqual(result.written.map(\.output), [folder("sheet-0001.png"), folder("sheet-0002.png"), folder("sheet-0003.png")])
        XCTAssertEqual(result.failed.map(\.path), [inputs.appending(Array("z.jpg".utf8))], "the whole folder is read")
        XCTAssertEqual(result.outcome.status, .someInputsFailed)
        for (sheet, pair) in [(1, (0, 1)), (2, (2, 3))] {
            let pixels = try readPixels(folder("sheet-000\(sheet).png"))
            XCTAssertEqual(pixels.pixel(x: 75, y: 100), colours[pair.0], "sheet \(sheet), left")
            XCTAssertEqual(pixels.pixel(x: 225, y: 100), colours[pair.1], "sheet \(sheet), right")
        }
        // The last sheet holds one image: the one-image grid, the whole canvas.
        let last = try readPixels(folder("sheet-0003.png"))
        XCTAssertEqual(last.width, 300)
        XCTAssertEqual(last.pixel(x: 10, y: 10), colours[4])
        XCTAssertEqual(last.pixel(x: 290, y: 190), colours[4])
    }

    // MARK: - Broken inputs

    func testTruncatedAndUnsupportedInputs() throws {
        let inputs = folder("mixed")
        try makeDirectory(inputs)
        let good = inputs.appending(Array("a-good.png".utf8))
        try writeFlatImage(good, colours[0])
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/aqua.jpg").path
        let whole = try readFile(PathName(sample))
        let truncated = inputs.appending(Array("b-truncated.jpg".utf8))
        try writeFile(Array(whole.prefix(whole.count / 2)), to: truncated)
        let past = Array(repeating: timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), count: 2)  // cut short 2 h ago: failed, not being copied
        XCTAssertEqual(truncated.withCString { name in name.map { utimensat(AT_FDCWD, $0, past, 0) } ?? -1 }, 0)
        let text = inputs.appending(Array("c-text.jpg".utf8))
        try writeFile(Array("not an image\n".utf8), to: text)

        let result = runCollage(configuration([.path(inputs)]))
        XCTAssertEqual(result.written.first?.images, [good])
        XCTAssertEqual(result.failed.map(\.path), [truncated], "a truncated photo is a failure, not a grey tile")
        XCTAssertEqual(result.rejected.map(\.path), [text])
        XCTAssertEqual(result.rejected.map(\.reason), [.unsupported])
        XCTAssertEqual(result.outcome.status, .someInputsFailed)
        let pixels = try readPixels(folder("out.png"))
        XCTAssertEqual(pixels.pixel(x: 150, y: 100), colours[0], "one image: the whole canvas")
    }

    func testTooLargeIsRejectedFromTheHeader() throws {
        // A PNG header claiming 100000 x 100000 (over the default --max-pixels), almost no data.
        let huge = folder("huge.png")
        try writeFile(hugeHeaderPNG(width: 100_000, height: 100_000), to: huge)
        let good = folder("good.png")
        try writeFlatImage(good, colours[1])
        let result = runCollage(configuration([.path(huge), .path(good)]))
        XCTAssertEqual(result.rejected.map(\.path), [huge])
        XCTAssertEqual(result.rejected.map(\.reason), [.tooLarge])
        XCTAssertEqual(result.written.first?.images, [good])
        XCTAssertEqual(result.outcome.status, .success)
    }

    func testNothingEligible() throws {
        let path = folder("tall.png")
        try writeFlatImage(path, colours[0], width: 40, height: 60)
        let result = runCollage(configuration([.path(path)]))
        XCTAssertEqual(result.outcome.status, .noInput)
        XCTAssertTrue(result.written.isEmpty)
        var info = stat()
        XCTAssertNotEqual(folder("out.png").withCString { stat($0!, &info) }, 0, "no output file")
        guard case .finished(let outcome)? = result.events.last else { return XCTFail("summary is the last event") }
        XCTAssertEqual(outcome.status, .noInput)
    }
}
