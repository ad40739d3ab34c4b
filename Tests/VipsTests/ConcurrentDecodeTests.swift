import Dispatch
import Glibc
import Locking
import CollageTestSupport
import CVipsShim
import XCTest
@testable import Vips

/// Decodes on several threads at once, as a run with `--jobs 2` or more
/// does, must neither crash nor mix up pixels.
///
/// Every resize makes libvips compile small liborc programs (its vertical
/// reduce) and free them when the operation goes away, on whichever thread
/// that is. Debian 12's liborc (0.4.33) corrupts its code memory when two
/// threads do that at once; `Sources/CVipsShim/OrcLock.c` puts one lock
/// around both.
final class ConcurrentDecodeTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// libvips reaches liborc through the lock: building a resize compiles
    /// (at least one locked call), freeing it frees (at least one more).
    func testLibvipsCompilesAndFreesThroughTheLock() throws {
        let input = try Self.smallImage()
        defer { g_object_unref(input) }
        let before = Vips.orcLockedCalls
        var resized: UnsafeMutablePointer<VipsImage>?
        XCTAssertEqual(cvips_thumbnail_image(input, &resized, 13, 9, VIPS_INTERESTING_CENTRE), 0,
                       String(cString: vips_error_buffer()))
        let built = Vips.orcLockedCalls
        XCTAssertGreaterThan(built, before, "building the resize compiled through the lock")
        g_object_unref(resized)
        XCTAssertGreaterThan(Vips.orcLockedCalls, built, "freeing it freed through the lock")
    }

    /// The race itself, at its most likely: libvips' resize built and freed
    /// over and over on two threads (no pixels computed: building is what
    /// compiles, freeing what frees). Without the lock this process crashed
    /// ("double free or corruption", a segmentation fault) or a thread spun
    /// forever on a broken list, in four runs of five.
    func testResizeBuiltAndFreedOnTwoThreads() throws {
        let failures = Problems()
        try finishes("two threads building and freeing resizes") {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                do {
                    let input = try Self.smallImage()
                    defer { g_object_unref(input) }
                    for round in 0..<1500 {
                        var resized: UnsafeMutablePointer<VipsImage>?
                        guard cvips_thumbnail_image(input, &resized, Int32(9 + round % 7), Int32(7 + round % 5),
                                                    VIPS_INTERESTING_CENTRE) == 0, let resized else {
                            return failures.add("thread \(thread), round \(round): the resize was not built")
                        }
                        g_object_unref(resized)
                    }
                } catch {
                    failures.add("thread \(thread): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.list, [])
    }

    /// The whole decode, from a file, on four threads: every tile whole and
    /// of its own image's colour.
    func testSmallDecodesOnFourThreadsKeepTheirPixels() throws {
        let colours: [RGB] = [RGB(red: 40, green: 200, blue: 90), RGB(red: 90, green: 160, blue: 90),
                              RGB(red: 140, green: 120, blue: 90), RGB(red: 190, green: 80, blue: 90)]
        let paths = try colours.enumerated().map { index, colour in
            let path = folder.file("small\(index).png")
            try writeImage(PixelBuffer(width: 64 + index, height: 48 + index, fill: colour), suffix: ".png", to: path)
            return path
        }
        let wrong = Problems()
        try finishes("four threads decoding") {
            DispatchQueue.concurrentPerform(iterations: paths.count) { index in
                do {
                    try withDescriptor(paths[index]) { descriptor in
                        for round in 0..<500 {
                            // Sizes change from round to round: each decode builds its own operations.
                            let width = 9 + round % 7, height = 7 + round % 5
                            let tile = try ImageFile.tile(descriptor: descriptor, width: width, height: height,
                                                          background: .white)
                            let centre = tile.pixel(x: width / 2, y: height / 2)
                            guard tile.width == width, tile.height == height, centre == colours[index] else {
                                return wrong.add("image \(index), round \(round): \(tile.width)x\(tile.height) \(centre)")
                            }
                        }
                    }
                } catch {
                    wrong.add("image \(index): \(error)")
                }
            }
        }
        XCTAssertEqual(wrong.list, [])
    }

    // MARK: - Helpers

    /// A 64x48 white image decoded into libvips' memory (libvips reads a
    /// buffer lazily: the copy is made while the PNG's bytes are alive).
    private static func smallImage() throws -> UnsafeMutablePointer<VipsImage> {
        let png = try Encoder.encode(PixelBuffer(width: 64, height: 48, fill: .white), suffix: ".png").bytes
        let image = png.withUnsafeBytes { bytes -> UnsafeMutablePointer<VipsImage>? in
            guard let loaded = cvips_image_new_from_buffer(bytes.baseAddress, bytes.count) else { return nil }
            defer { g_object_unref(loaded) }
            return vips_image_copy_memory(loaded)
        }
        guard let image else { throw TestFailure("cannot load the PNG: \(String(cString: vips_error_buffer()))") }
        return image
    }

    /// Runs `work` on another thread and waits for it. A thread caught in a
    /// broken list never returns: after ten minutes (the work takes seconds)
    /// the process stops with this message rather than hang the suite.
    private func finishes(_ what: String, _ work: @escaping @Sendable () -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        Thread { work(); done.signal() }.start()
        if done.wait(timeout: .now() + 600) == .timedOut {
            fatalError("\(what) did not finish in ten minutes: a thread is stuck (liborc's code lists broken?)")
        }
    }
}

/// What went wrong on any thread.
private final class Problems: Sendable {
    private let items = Locked<[String]>([])
    func add(_ item: String) { items.withLock { $0.append(item) } }
    var list: [String] { items.withLock { $0 } }
}
