import Foundation
import Glibc
import Synchronization
import Vips
import XCTest

/// Images for the CLI tests: made with libvips, read back, and checked
/// tile by tile against the contract's grid.
extension CLITestCase {
    // MARK: - Images

    private static let cache = Mutex<[String: [UInt8]]>([:])

    /// A flat-colour image, encoded by libvips in the format `suffix` names.
    func image(_ colour: RGB, width: Int = 64, height: Int = 48, suffix: String = ".png") -> [UInt8] {
        let key = "\(colour) \(width)x\(height) \(suffix)"
        if let cached = Self.cache.withLock({ $0[key] }) { return cached }
        let bytes = try! Encoder.encode(PixelBuffer(width: width, height: height, fill: colour),
                                        suffix: suffix, orientation: nil).bytes
        Self.cache.withLock { $0[key] = bytes }
        return bytes
    }

    func writeImage(_ colour: RGB, to relative: String, width: Int = 64, height: Int = 48, suffix: String = ".png") {
        write(image(colour, width: width, height: height, suffix: suffix), to: b(relative))
    }

    func writeImage(_ colour: RGB, to relative: [UInt8], width: Int = 64, height: Int = 48, suffix: String = ".png") {
        write(image(colour, width: width, height: height, suffix: suffix), to: relative)
    }

    /// Decodes a written file; fails the test when it is not a complete image.
    func decoded(_ relative: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> PixelBuffer? {
        guard let bytes = contents(relative) else {
            XCTFail("no file \(String(decoding: relative, as: UTF8.self))", file: file, line: line)
            return nil
        }
        do {
            return try ImageFile.decode(bytes: bytes)
        } catch {
            XCTFail("\(String(decoding: relative, as: UTF8.self)) does not decode: \(error)", file: file, line: line)
            return nil
        }
    }

    func decoded(_ relative: String, file: StaticString = #filePath, line: UInt = #line) -> PixelBuffer? {
        decoded(b(relative), file: file, line: line)
    }

    /// The tile rectangles of the contract's grid for `n` images on W x H.
    func grid(_ n: Int, width: Int = 1200, height: Int = 800) -> [(x: Int, y: Int, w: Int, h: Int)] {
        let rows = n < 3 ? 1 : 2
        let columns = Int((Double(n) / Double(rows)).rounded(.toNearestOrAwayFromZero))
        let tileW = Int((Double(width) / Double(columns)).rounded(.toNearestOrAwayFromZero))
        let tileH = Int((Double(height) / Double(rows)).rounded(.toNearestOrAwayFromZero))
        return (0..<n).map { ((($0 % columns) * tileW), ($0 / columns) * tileH, tileW, tileH) }
    }

    /// Asserts that tile i of the collage is the flat colour `colours[i]`
    /// (sampled at its centre and near its corners), within `tolerance`.
    func assertTiles(_ picture: PixelBuffer, _ colours: [RGB], tolerance: Int = 40,
                     file: StaticString = #filePath, line: UInt = #line) {
        let tiles = grid(colours.count, width: picture.width, height: picture.height)
        for (index, (tile, colour)) in zip(tiles, colours).enumerated() {
            let points = [(tile.x + tile.w / 2, tile.y + tile.h / 2), (tile.x + 8, tile.y + 8),
                          (tile.x + tile.w - 9, tile.y + tile.h - 9)]
            for (x, y) in points where x < picture.width && y < picture.height {
                let seen = picture.pixel(x: x, y: y)
                XCTAssertLessThanOrEqual(seen.distance(to: colour), tolerance,
                                         "tile \(index) at (\(x),\(y)) is \(seen), expected \(colour)",
                                         file: file, line: line)
            }
        }
    }
}
