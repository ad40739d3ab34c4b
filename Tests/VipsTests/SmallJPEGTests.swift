import CVipsShim
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

    /// The look is computed on the caller's thread (a look a core), never
    /// handed to libvips' workers: every pool its resize starts runs here.
    func testTheLookIsComputedOnTheCallersThread() throws {
        let path = samplesDirectory + "/dune.jpg", facts = try header(of: path)
        let (pooled, here) = (cvips_pools_started(0), cvips_pools_started(1))
        XCTAssertNotNil(try small(path, facts.displayedWidth / 5, facts.displayedHeight / 5))
        XCTAssertEqual(cvips_pools_started(0), pooled, "a pool was handed to libvips' workers")
        XCTAssertGreaterThan(cvips_pools_started(1), here)
        // And libvips' own tile, beside it, still uses libvips' workers.
        _ = try libvips(path, facts.displayedWidth / 5, facts.displayedHeight / 5)
        XCTAssertGreaterThan(cvips_pools_started(0), pooled)
    }
}

extension SmallJPEGTests {
    /// `samples/dune.jpg` saved by libvips with `options` (jpegsave's).
    private func saved(_ name: String, _ options: String, colourspace: String? = nil) throws -> String {
        var source = samplesDirectory + "/dune.jpg"
        if let colourspace {
            source = folder.file(name + "-source.v")
            _ = try runTool("vips", ["colourspace", samplesDirectory + "/dune.jpg", source, colourspace])
        }
        let path = folder.file(name + ".jpg")
        _ = try runTool("vips", ["copy", source, path + "[\(options)]"])
        return path
    }

    func testProgressiveGreyFullChromaAndRestartsGiveLibvipsTiles() throws {
        for (name, options, colourspace) in [("progressive", "Q=80,interlace", nil), ("grey", "Q=80", "b-w"),
                                             ("full-chroma", "Q=90,subsample_mode=off", nil),
                                             ("restarts", "Q=80,restart_interval=3", nil)] {
            let path = try saved(name, options, colourspace: colourspace)
            let facts = try header(of: path)
            XCTAssertEqual(facts.bands, colourspace == nil ? 3 : 1, name)
            for (width, height) in sizes(facts.displayedWidth, facts.displayedHeight) {
                let fast = try XCTUnwrap(small(path, width, height), "\(name) \(width)x\(height)")
                XCTAssertEqual(compare(fast, try libvips(path, width, height)).largest, 0, "\(name) \(width)x\(height)")
            }
        }
    }

    /// What CJPEG is not sure of is libvips': a CMYK JPEG, one cut short,
    /// one with corrupt data libjpeg warns of, one whose decode needs more
    /// than it may hold.
    func testCMYKCutShortCorruptAndTooLargeAreLeftToLibvips() throws {
        let cmyk = try saved("cmyk", "Q=80", colourspace: "cmyk")
        XCTAssertEqual(try header(of: cmyk).bands, 4)
        XCTAssertNil(try small(cmyk, 128, 80))

        let whole = try readBytes(try saved("whole", "Q=80"))
        let cut = folder.file("cut.jpg")
        try writeBytes(Array(whole.prefix(whole.count * 2 / 3)), to: cut)
        XCTAssertNil(try small(cut, 128, 80))
        XCTAssertThrowsError(try libvips(cut, 128, 80), "libvips' answer stays the file's: an error")

        // Bytes of the entropy-coded data, past the headers, overwritten:
        // libjpeg warns of corrupt data and goes on; CJPEG does not.
        var corrupt = whole
        let start = corrupt.count / 2
        for i in start..<(start + 64) { corrupt[i] = 0xFF }
        let damaged = folder.file("damaged.jpg")
        try writeBytes(corrupt, to: damaged)
        XCTAssertNil(try small(damaged, 128, 80))

        let path = try saved("large", "Q=80")
        XCTAssertNotNil(try small(path, 128, 80))
        XCTAssertNil(try small(path, 128, 80, maxBytes: 64 << 10), "its rows alone need more than 64 KiB")
    }
}
