import CollageTestSupport
import FileFacts
import XCTest
@testable import Vips


/// For each EXIF orientation, an image stored landscape and one stored
/// portrait: the header gives the stored size and the orientation, the
/// displayed size swaps for 5-8, `isPortrait` follows the displayed size,
/// and the decoded tile shows the picture upright.
final class OrientationTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func checkUpright(_ pixels: PixelBuffer, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let w = pixels.width, h = pixels.height
        let points = [(w / 4, h / 4, Marker.topLeft), (3 * w / 4, h / 4, Marker.topRight),
                      (w / 4, 3 * h / 4, Marker.bottomLeft), (3 * w / 4, 3 * h / 4, Marker.bottomRight)]
        for (x, y, expected) in points {
            XCTAssertColour(pixels.pixel(x: x, y: y), expected, tolerance: 8, "\(what) at (\(x),\(y))",
                            file: file, line: line)
        }
    }

    func testTheMarkerMappingIsTheIdentityForOrientationOne() {
        // Guards the helper itself: orientation 1 stores the picture as displayed.
        let stored = Marker.stored(orientation: 1, displayedWidth: 60, displayedHeight: 40)
        XCTAssertEqual(stored.pixel(x: 0, y: 0), Marker.topLeft)
        XCTAssertEqual(stored.pixel(x: 59, y: 0), Marker.topRight)
        XCTAssertEqual(stored.pixel(x: 0, y: 39), Marker.bottomLeft)
        XCTAssertEqual(stored.pixel(x: 59, y: 39), Marker.bottomRight)
        // Orientation 6 (turn 90° clockwise to display): stored row 0 is the displayed right side.
        let six = Marker.stored(orientation: 6, displayedWidth: 60, displayedHeight: 40)
        XCTAssertEqual(six.width, 40)
        XCTAssertEqual(six.height, 60)
        XCTAssertEqual(six.pixel(x: 0, y: 0), Marker.topRight)
        XCTAssertEqual(six.pixel(x: 39, y: 0), Marker.bottomRight)
        XCTAssertEqual(six.pixel(x: 0, y: 59), Marker.topLeft)
    }

    func testEveryOrientationStoredLandscapeAndStoredPortrait() throws {
        for orientation in 1...8 {
            for storedLandscape in [true, false] {
                let (sw, sh) = storedLandscape ? (60, 40) : (40, 60)
                let swaps = orientation >= 5
                let (dw, dh) = swaps ? (sh, sw) : (sw, sh)
                let what = "orientation \(orientation), stored \(sw)x\(sh), displayed \(dw)x\(dh)"
                let path = folder.file("o\(orientation)-\(sw)x\(sh).jpg")
                let stored = Marker.stored(orientation: orientation, displayedWidth: dw, displayedHeight: dh)
                XCTAssertEqual(stored.width, sw, what)
                try writeImage(stored, suffix: ".jpg[Q=95]", orientation: orientation, to: path)

                let probed = try header(of: path)
                XCTAssertEqual(probed.width, sw, what)
                XCTAssertEqual(probed.height, sh, what)
                XCTAssertEqual(probed.orientation, orientation, what)
                XCTAssertEqual(probed.displayedWidth, dw, what)
                XCTAssertEqual(probed.displayedHeight, dh, what)
                XCTAssertEqual(probed.isPortrait, dh > dw, what)
                // Stored landscape is portrait exactly for 5-8; stored portrait exactly for 1-4.
                XCTAssertEqual(probed.isPortrait, storedLandscape == swaps, what)

                // A tile of the displayed shape, at half size: the picture upright.
                let pixels = try tile(of: path, width: dw / 2, height: dh / 2)
                XCTAssertTile(pixels, width: dw / 2, height: dh / 2, what)
                checkUpright(pixels, what)
            }
        }
    }

    func testSquareIsNotPortrait() {
        XCTAssertFalse(ImageHeader(width: 50, height: 50, orientation: 6, format: "jpeg").isPortrait)
        XCTAssertFalse(ImageHeader(width: 50, height: 50, orientation: 1, format: "jpeg").isPortrait)
        XCTAssertTrue(ImageHeader(width: 50, height: 51, orientation: 1, format: "jpeg").isPortrait)
        XCTAssertFalse(ImageHeader(width: 50, height: 51, orientation: 8, format: "jpeg").isPortrait)
    }

    func testSampleTaggedSideways() throws {
        // samples/wood-sideways.jpg: stored 1024x768, orientation 6: displayed portrait.
        let wood = try header(of: samplesDirectory + "/wood-sideways.jpg")
        XCTAssertEqual([wood.width, wood.height, wood.orientation], [1024, 768, 6])
        XCTAssertTrue(wood.isPortrait)
        // samples/storm-rotated.jpg: stored 683x1024, orientation 6: displayed landscape.
        let storm = try header(of: samplesDirectory + "/storm-rotated.jpg")
        XCTAssertEqual([storm.width, storm.height, storm.orientation], [683, 1024, 6])
        XCTAssertFalse(storm.isPortrait)
        XCTAssertEqual(storm.displayedWidth, 1024)
    }
}
