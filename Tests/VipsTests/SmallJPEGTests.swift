import FileFacts
import Foundation
import CollageTestSupport
import XCTest
@testable import Vips

/// CJPEG, the small JPEG decode `--pick`'s looks take: the real photos of
/// samples/ (upright, turned, sideways; 4:2:0 and 4:4:4), baseline,
/// progressive and grey, at every shrink-on-load libvips' thumbnail uses,
/// give libvips' own tile; every JPEG it is not sure of (CMYK, cut short,
/// damaged, beyond its memory) is left to libvips (nil), whose answer
/// stays the file's.
final class SmallJPEGTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func small(_ path: String, _ width: Int, _ height: Int, maxBytes: Int = 1 << 30) throws -> PixelBuffer? {
        try withDescriptor(path) { descriptor in
            try ImageFile.smallJPEGTile(descriptor: descriptor, width: width, height: height,
                                        header: ImageFile.header(descriptor: descriptor),
                                        maxBuffer: StructureCheck.bufferLimit, maxBytes: maxBytes)
        }
    }

    private func libvips(_ path: String, _ width: Int, _ height: Int) throws -> PixelBuffer {
        try withDescriptor(path) { descriptor in
            try ImageFile.tile(descriptor: descriptor, width: width, height: height, crop: .centre,
                               background: RGB(red: 0, green: 0, blue: 0), header: ImageFile.header(descriptor: descriptor),
                               colourManaged: false)
        }
    }

    /// The largest difference of any sample, and how many samples differ.
    private func compare(_ a: PixelBuffer, _ b: PixelBuffer) -> (largest: Int, differing: Int) {
        XCTAssertEqual([a.width, a.height, a.bands], [b.width, b.height, b.bands])
        var largest = 0, differing = 0
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                for index in 0..<min(a.count, b.count) where a[index] != b[index] {
                    largest = max(largest, abs(Int(a[index]) - Int(b[index])))
                    differing += 1
                }
            }
        }
        return (largest, differing)
    }

    /// Tile sizes that take each shrink-on-load (none, 2, 4, 8) of a photo
    /// `width` x `height` upright, with its shape.
    private func sizes(_ width: Int, _ height: Int) -> [(Int, Int)] {
        [3, 5, 9, 17].map { factor in (max(1, width / factor), max(1, height / factor)) }
    }

    func testRealPhotosGiveLibvipsTilesAtEveryShrink() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: samplesDirectory).filter { $0.hasSuffix(".jpg") }
        XCTAssertGreaterThanOrEqual(names.count, 8)
        var shrinks = Set<Int>(), orientations = Set<Int>()
        for name in names.sorted() {
            let path = samplesDirectory + "/" + name, facts = try header(of: path)
            orientations.insert(facts.orientation)
            for (width, height) in sizes(facts.displayedWidth, facts.displayedHeight) {
                shrinks.insert(ImageFile.jpegShrink(facts, width, height))
                let fast = try XCTUnwrap(small(path, width, height), "\(name) \(width)x\(height)")
                let (largest, differing) = compare(fast, try libvips(path, width, height))
                XCTAssertEqual(largest, 0, "\(name) at \(width)x\(height): \(differing) samples differ")
            }
        }
        XCTAssertEqual(shrinks, [1, 2, 4, 8])
        XCTAssertTrue(orientations.contains(1) && orientations.contains { $0 >= 5 }, "\(orientations)")
    }
}
