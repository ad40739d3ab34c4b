import FileFacts
import Foundation
import CollageTestSupport
import XCTest
import CPNG
@testable import Vips

/// CPNG, the plain-PNG decoder `--diff` reads screenshots with: every row
/// filter libpng writes, RGB and opaque RGBA, sizes down to one pixel,
/// gives libvips' pixels byte for byte; every other PNG, and every damaged
/// one, is left to libvips, whose answer stays the file's.
final class PlainPNGTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// Pixels that use every filter's arithmetic: noise (wrapping sums,
    /// Paeth's ties and its three choices), stripes and flat runs.
    private func busy(_ width: Int, _ height: Int) -> PixelBuffer {
        PixelBuffer(width: width, height: height) { x, y in
            let noise = UInt8(truncatingIfNeeded: (x &* 7919 &+ y &* 104_729 &+ x &* y &* 31) >> 3)
            if y % 5 == 1 { return RGB(red: UInt8(truncatingIfNeeded: x * 3), green: 200, blue: noise) }
            if x % 9 < 3 { return RGB(red: 250, green: 250, blue: 250) }
            return RGB(red: noise, green: UInt8(truncatingIfNeeded: noise &* 3), blue: UInt8(truncatingIfNeeded: y))
        }
    }

    /// `pixels` saved by libvips (libpng) with `options` ("--filter", "paeth", ...).
    private func png(_ pixels: PixelBuffer, _ name: String, alpha: String? = nil, _ options: [String] = []) throws -> String {
        let source = folder.file(name + "-source.png"), path = folder.file(name + ".png")
        try writeImage(pixels, suffix: ".png", to: source)
        var input = source
        if let alpha {
            input = folder.file(name + "-alpha.v")
            _ = try runTool("vips", ["bandjoin_const", source, input, alpha])
        }
        _ = try runTool("vips", ["pngsave", input, path, "--strip"] + options)
        return path
    }

    private func withDescriptor<R>(_ path: String, _ body: (Int32) throws -> R) throws -> R {
        let descriptor = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0, path)
        defer { close(descriptor) }
        return try body(descriptor)
    }

    private func fast(_ path: String) throws -> FullPicture? {
        try withDescriptor(path) { try ImageFile.plainPNG($0, maxBuffer: StructureCheck.bufferLimit) }
    }

    private func libvips(_ path: String) throws -> PixelBuffer {
        try withDescriptor(path) { try ImageFile.full(descriptor: $0, plainFast: false).pixels() }
    }

    func testEveryFilterAndSizeGivesLibvipsPixels() throws {
        let sizes = [(1, 1), (1, 40), (2, 300), (3, 2), (17, 9), (333, 41)]
        for (width, height) in sizes {
            for alpha in [nil, "255"] {
                for filter in ["none", "sub", "up", "avg", "paeth", "all"] {
                    let name = "p\(width)x\(height)-\(alpha ?? "rgb")-\(filter)"
                    let path = try png(busy(width, height), name, alpha: alpha,
                                       ["--filter", filter, "--compression", String(width % 10)])
                    let picture = try XCTUnwrap(try fast(path), "\(name) is plain: CPNG decodes it")
                    XCTAssertEqual(picture.width, width)
                    XCTAssertEqual(picture.height, height)
                    XCTAssertTrue(same(try picture.pixels(), try libvips(path)), name)
                }
            }
        }
    }

    /// A page's flat areas (white, and a grey band) with a dot here and
    /// there: Sub and Paeth rows that are mostly zeros, which CPNG fills
    /// a block of pixels at a time, give libvips' pixels too.
    func testFlatAreasUnderSubAndPaethGiveLibvipsPixels() throws {
        let page = PixelBuffer(width: 203, height: 40) { x, y in
            if (x * 7 + y * 13) % 37 == 0 { return RGB(red: 0, green: UInt8(y * 5), blue: 9) }
            if y >= 20 && y < 26 { return RGB(red: 200, green: 201, blue: 202) }
            return RGB(red: 255, green: 255, blue: 255)
        }
        for alpha in [nil, "255"] {
            for filter in ["sub", "paeth", "all"] {
                let name = "flat-\(alpha ?? "rgb")-\(filter)"
                let path = try png(page, name, alpha: alpha, ["--filter", filter])
                let picture = try XCTUnwrap(try fast(path), name)
                XCTAssertTrue(same(try picture.pixels(), try libvips(path)), name)
            }
        }
    }

    func testTheDiffsDecodeIsCPNGsForAPlainPNG() throws {
        let path = try png(busy(40, 30), "plain", ["--filter", "all"])
        let picture = try withDescriptor(path) { try ImageFile.full(descriptor: $0) }
        XCTAssertTrue(same(try picture.pixels(), try libvips(path)))
        XCTAssertTrue(same(try picture.pixels(), try XCTUnwrap(try fast(path)).pixels()))
    }

    func testOtherPNGsAreLeftToLibvips() throws {
        let pixels = busy(24, 16)
        let cases: [(String, String?, [String])] = [
            ("translucent", "128", []),  // alpha that is not opaque: libvips flattens it
            ("interlaced", nil, ["--interlace"]),
            ("palette", nil, ["--palette"]),
            ("deep", nil, ["--bitdepth", "16"]),
        ]
        for (name, alpha, options) in cases {
            let path = try png(pixels, name, alpha: alpha, options)
            XCTAssertNil(try fast(path), "\(name) is not plain")
            // The run's decode still gives libvips' pixels.
            let picture = try withDescriptor(path) { try ImageFile.full(descriptor: $0) }
            XCTAssertTrue(same(try picture.pixels(), try libvips(path)), name)
        }
        let grey = folder.file("grey.png")
        _ = try runTool("vips", ["colourspace", try png(pixels, "colour"), grey, "b-w"])
        XCTAssertNil(try fast(grey), "grey is not plain")
        let profiled = folder.file("profiled.png")
        _ = try runTool("vips", ["pngsave", try png(pixels, "srgb"), profiled, "--profile", "srgb"])
        XCTAssertNil(try fast(profiled), "a PNG with a profile is libvips' (it converts from the profile)")
    }

    func testDamagedPNGsAreLeftToLibvipsWhichRefusesThem() throws {
        let path = try png(busy(64, 64), "whole", ["--filter", "paeth", "--compression", "0"])
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let start = try XCTUnwrap(chunkStart(bytes, "IDAT"))
        var damaged: [(String, [UInt8])] = []
        var flipped = bytes
        flipped[start + 8 + 100] ^= 0x40  // inside the data: the CRC no longer holds
        damaged.append(("a flipped bit", flipped))
        damaged.append(("cut short", Array(bytes.prefix(bytes.count - 200))))
        damaged.append(("no IEND", Array(bytes.prefix(bytes.count - 12))))
        for (name, damagedBytes) in damaged {
            let path = folder.file("damaged.png")
            try Data(damagedBytes).write(to: URL(fileURLWithPath: path))
            XCTAssertNil(try fast(path), "\(name): not CPNG's")
            if name != "no IEND" {  // libpng reads a file whose data is whole without its IEND
                XCTAssertThrowsError(try withDescriptor(path) { try ImageFile.full(descriptor: $0) }, name)
            }
        }
    }

    func testAFilterByteOverFourIsNotUnfiltered() {
        var rows: [UInt8] = [0, 1, 2, 3, 5, 4, 5, 6]  // two rows of one RGB pixel; the second's filter is 5
        XCTAssertEqual(rows.withUnsafeMutableBufferPointer { cpng_unfilter($0.baseAddress!, 1, 2, 3) }, -1)
        XCTAssertEqual(Array(rows.prefix(3)), [1, 2, 3], "the row before it is unfiltered")
    }

    private func same(_ left: PixelBuffer, _ right: PixelBuffer) -> Bool {
        left.width == right.width && left.height == right.height && left.bands == right.bands
            && left.withUnsafeBytes { l in right.withUnsafeBytes { r in l.elementsEqual(r) } }
    }

    /// Where the first chunk of `type` starts (its length field).
    private func chunkStart(_ bytes: [UInt8], _ type: String) -> Int? {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == type { return offset }
            offset += 12 + length
        }
        return nil
    }
}
