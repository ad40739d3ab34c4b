import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// The seed grid through the real pipeline: a folder of flat-colour
/// PNGs made here, a CollageRun writing a PNG, and every pixel of the
/// output checked: each tile is its image's colour in input order, empty
/// cells and the canvas left over by rounding are the background, and the
/// output is exactly W x H.
final class LayoutPipelineTests: XCTestCase {
    /// Distinct colours, none of them white or the custom background below.
    static let colours: [RGB] = [
        RGB(red: 200, green: 30, blue: 40), RGB(red: 30, green: 160, blue: 60), RGB(red: 40, green: 60, blue: 190),
        RGB(red: 230, green: 200, blue: 30), RGB(red: 150, green: 40, blue: 170), RGB(red: 20, green: 180, blue: 190),
        RGB(red: 120, green: 80, blue: 30), RGB(red: 90, green: 90, blue: 90), RGB(red: 250, green: 130, blue: 160),
    ]
    static let customBackground = RGB(red: 10, green: 70, blue: 40)

    private var folder: TemporaryDirectory!
    /// Cases seen, so the test proves it really exercised both kinds of rounding.
    private var sawLeftover = false
    private var sawClipping = false
    private var sawEmptyCell = false

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// Makes `n` images (60x40, landscape) in a new folder, named in input order.
    private func makeInputs(_ n: Int) throws -> (folder: PathName, paths: [PathName]) {
        let inputs = folder("inputs-\(n)-\(UInt32.random(in: 0...UInt32.max))")
        try makeDirectory(inputs)
        var paths: [PathName] = []
        for index in 0..<n {
            let path = inputs.appending(Array("image-\(index).png".utf8))
            try writeFlatImage(path, Self.colours[index])
            paths.append(path)
        }
        return (inputs, paths)
    }

    /// Runs the pipeline and checks the whole canvas.
    private func check(n: Int, width: Int, height: Int, cap: Int = 6, background: RGB? = nil,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let what = "n=\(n) on \(width)x\(height)"
        let (inputs, paths) = try makeInputs(n)
        var configuration = CollageConfiguration(inputs: [.path(inputs)])
        configuration.canvasWidth = width
        configuration.canvasHeight = height
        configuration.maxImages = cap
        configuration.layoutName = "seed"  // these check the seed grid, whatever the count
        configuration.jobs = 2
        if let background { configuration.background = background }
        let output = folder("out-\(n)-\(width)x\(height).png")
        configuration.output = output

        let result = runCollage(configuration)
        XCTAssertEqual(result.outcome.status, .success, "\(what): \(result.outcome.message ?? "")", file: file, line: line)
        guard let sheet = result.written.first else { return XCTFail("\(what): nothing written", file: file, line: line) }
        XCTAssertEqual(result.written.count, 1, what, file: file, line: line)
        XCTAssertEqual(sheet.images, paths, "\(what): images in input order", file: file, line: line)
        XCTAssertEqual(sheet.width, width, what, file: file, line: line)
        XCTAssertEqual(sheet.height, height, what, file: file, line: line)
        XCTAssertEqual(sheet.output, output, what, file: file, line: line)

        let pixels = try readPixels(output)
        XCTAssertEqual(pixels.width, width, "\(what): output width", file: file, line: line)
        XCTAssertEqual(pixels.height, height, "\(what): output height", file: file, line: line)
        guard pixels.width == width, pixels.height == height else { return }

        // The contract's formula, computed here in floating point, not with GridLayout.
        let rows = n < 3 ? 1 : 2
        let columns = Int((Double(n) / Double(rows)).rounded(.toNearestOrAwayFromZero))
        let tileWidth = Int((Double(width) / Double(columns)).rounded(.toNearestOrAwayFromZero))
        let tileHeight = Int((Double(height) / Double(rows)).rounded(.toNearestOrAwayFromZero))
        let paper = background ?? .white
        func expected(_ x: Int, _ y: Int) -> RGB {
            let column = x / tileWidth, row = y / tileHeight
            guard column < columns, row < rows else { return paper }  // left over by rounding
            let index = row * columns + column
            return index < n ? Self.colours[index] : paper  // an empty cell
        }

        // Tile centres first, for a readable failure.
        for index in 0..<(rows * columns) {
            let x = (index % columns) * tileWidth + tileWidth / 2
            let y = (index / columns) * tileHeight + tileHeight / 2
            guard x < width, y < height else { continue }
            let want = index < n ? Self.colours[index] : paper
            XCTAssertEqual(pixels.pixel(x: x, y: y), want, "\(what): centre of cell \(index)", file: file, line: line)
            if index >= n { sawEmptyCell = true }
        }
        if columns * tileWidth < width {
            sawLeftover = true
            XCTAssertEqual(pixels.pixel(x: width - 1, y: height / 2), paper, "\(what): leftover column",
                           file: file, line: line)
        }
        if columns * tileWidth > width || rows * tileHeight > height { sawClipping = true }

        // Then every pixel.
        var mismatches = 0
        var first: String?
        pixels.withUnsafeBytes { bytes in
            for y in 0..<height {
                var x = 0
                while x < width {
                    // One expected colour per run of the same cell.
                    let want = expected(x, y)
                    let runEnd = min(width, x / tileWidth * tileWidth + tileWidth)
                    let end = x / tileWidth >= columns ? width : runEnd
                    for px in x..<end {
                        let offset = (y * width + px) * 3
                        if bytes[offset] != want.red || bytes[offset + 1] != want.green || bytes[offset + 2] != want.blue {
                            mismatches += 1
                            if first == nil { first = "(\(px),\(y)) is \(pixels.pixel(x: px, y: y)), expected \(want)" }
                        }
                    }
                    x = end
                }
            }
        }
        XCTAssertEqual(mismatches, 0, "\(what): pixels off the grid, first \(first ?? "")", file: file, line: line)
    }

    func testOneToSixOnTheDefaultCanvas() throws {
        for n in 1...6 { try check(n: n, width: 1200, height: 800) }
        XCTAssertTrue(sawEmptyCell, "n=3 and n=5 leave a cell empty")
    }

    func testOneToSixOnAnAwkwardCanvas() throws {
        for n in 1...6 { try check(n: n, width: 1001, height: 701) }
        XCTAssertTrue(sawClipping, "1001/2 and 1001/3 round up: the last column is clipped")
    }

    func testSevenAndNineWithALargerCap() throws {
        for n in [7, 9] {
            try check(n: n, width: 1200, height: 800, cap: 10)
            try check(n: n, width: 1001, height: 701, cap: 10)
        }
        XCTAssertTrue(sawLeftover, "1001/4 and 1001/5 round down: a column is left over")
        XCTAssertTrue(sawEmptyCell)
    }

    func testCustomBackgroundFillsEmptyCellsAndLeftovers() throws {
        // 7 images: 2 rows of 4, one cell empty; 1001/4 = 250 leaves column 1000 over.
        try check(n: 7, width: 1001, height: 701, cap: 8, background: Self.customBackground)
        try check(n: 5, width: 1200, height: 800, background: Self.customBackground)
        XCTAssertTrue(sawLeftover)
        XCTAssertTrue(sawEmptyCell)
    }

    func testTheCapStopsAtSixAndKeepsTheFirstSix() throws {
        let (inputs, paths) = try makeInputs(9)
        var configuration = CollageConfiguration(inputs: [.path(inputs)])
        configuration.canvasWidth = 300
        configuration.canvasHeight = 200
        configuration.output = folder("capped.png")
        let result = runCollage(configuration)
        XCTAssertEqual(result.outcome.status, .success)
        XCTAssertEqual(result.written.map(\.images), [Array(paths.prefix(6))])
        let pixels = try readPixels(folder("capped.png"))
        XCTAssertEqual(pixels.pixel(x: 250, y: 150), Self.colours[5], "image 5 in the last cell")
    }

    func testStandardInputOrderIsTileOrder() throws {
        // Not byte order: the order the list gives.
        let (_, paths) = try makeInputs(3)
        // CI may start the tests with descriptor 0 closed: hold it, so the pipe gets other numbers.
        if fcntl(0, F_GETFD) == -1 { _ = open("/dev/null", O_RDONLY) }
        let list = try TestPipe()
        for path in [paths[2], paths[0], paths[1]] { list.write(path.bytes + [10]) }
        list.closeWriteEnd()
        var configuration = CollageConfiguration(inputs: [.standardInput])
        configuration.output = folder("stdin.png")
        configuration.canvasWidth = 300
        configuration.canvasHeight = 200
        // CollageRun reads standard input from descriptor 0: put the pipe there for the run.
        let saved = dup(0)
        dup2(list.readEnd, 0)
        defer { dup2(saved, 0); close(saved) }
        let result = runCollage(configuration)
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertEqual(result.written.first?.images, [paths[2], paths[0], paths[1]])
        let pixels = try readPixels(folder("stdin.png"))
        // 3 images: 2 rows x 2 columns of 150x100.
        XCTAssertEqual(pixels.pixel(x: 75, y: 50), Self.colours[2])
        XCTAssertEqual(pixels.pixel(x: 225, y: 50), Self.colours[0])
        XCTAssertEqual(pixels.pixel(x: 75, y: 150), Self.colours[1])
        XCTAssertEqual(pixels.pixel(x: 225, y: 150), .white)
    }
}
