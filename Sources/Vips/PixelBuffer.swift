internal import CVipsShim
import Synchronization

/// 8-bit sRGB pixels, `bands` interleaved samples per pixel, rows packed.
///
/// A value, copied on write: copies share one memory until one of them is
/// written, which first takes a memory of its own. So pixels are written
/// only while one buffer alone holds them, and a buffer others see (a
/// `let`, a decoded tile on its way to a sheet) cannot be written at all:
/// the writing methods (`place`, `draw`, `drawPlayMark`) are `mutating`.
/// A buffer written where it was made is never copied.
public struct PixelBuffer: Sendable {
    private var memory: PixelMemory

    public var width: Int { memory.width }
    public var height: Int { memory.height }
    public var bands: Int { memory.bands }
    public var byteCount: Int { width * height * bands }
    public var rowBytes: Int { width * bands }

    /// The pixels, to read.
    var base: UnsafeRawPointer { UnsafeRawPointer(memory.base) }

    init(width: Int, height: Int, bands: Int, base: UnsafeMutableRawPointer,
         release: @escaping (UnsafeMutableRawPointer) -> Void) {
        memory = PixelMemory(width: width, height: height, bands: bands, base: base, release: release)
    }

    // Atomics, not a `Mutex`: every decode counts here, and a contended
    // Mutex is handed over in the kernel, where ThreadSanitizer cannot see it.
    fileprivate static let liveCount = Atomic<Int>(0)
    fileprivate static let peakCount = Atomic<Int>(0)

    /// How many pixel buffers (decoded tiles, canvases) exist now, and the
    /// most that existed at once since the last `resetPeak()`: what proves
    /// that memory is bounded by the window, not by the input. (Copies
    /// that share their memory count once.)
    public static var live: (now: Int, peak: Int) {
        (liveCount.load(ordering: .relaxed), peakCount.load(ordering: .relaxed))
    }
    public static func resetPeak() { peakCount.store(liveCount.load(ordering: .relaxed), ordering: .relaxed) }

    /// A new buffer of one flat colour.
    public init(width: Int, height: Int, fill: RGB) {
        precondition(width > 0 && height > 0)
        let base = UnsafeMutableRawPointer.allocate(byteCount: width * height * 3, alignment: 16)
        self.init(width: width, height: height, bands: 3, base: base, release: { $0.deallocate() })
        let rowBytes = rowBytes
        let row = base.assumingMemoryBound(to: UInt8.self)
        for x in 0..<width {
            row[x * 3] = fill.red
            row[x * 3 + 1] = fill.green
            row[x * 3 + 2] = fill.blue
        }
        for y in 1..<height {
            (base + y * rowBytes).copyMemory(from: base, byteCount: rowBytes)
        }
    }

    /// A new buffer painted pixel by pixel (tests and tools).
    public init(width: Int, height: Int, paint: (Int, Int) -> RGB) {
        self.init(width: width, height: height, fill: RGB(red: 0, green: 0, blue: 0))
        withUnsafeMutablePixels { pixels in
            for y in 0..<height {
                for x in 0..<width {
                    let colour = paint(x, y)
                    let offset = (y * width + x) * 3
                    pixels[offset] = colour.red
                    pixels[offset + 1] = colour.green
                    pixels[offset + 2] = colour.blue
                }
            }
        }
    }

    /// The colour at (x, y); the first three bands.
    public func pixel(x: Int, y: Int) -> RGB {
        precondition(x >= 0 && x < width && y >= 0 && y < height)
        let p = base.assumingMemoryBound(to: UInt8.self) + (y * width + x) * bands
        return bands >= 3 ? RGB(red: p[0], green: p[1], blue: p[2]) : RGB(red: p[0], green: p[0], blue: p[0])
    }

    /// Copies `tile` with its top-left corner at (x, y), clipped to this buffer.
    /// Both must have the same number of bands.
    public mutating func place(_ tile: PixelBuffer, x: Int, y: Int) {
        let (width, height, bands) = (width, height, bands)
        precondition(tile.bands == bands)
        let left = max(0, x), top = max(0, y)
        let right = min(width, x + tile.width), bottom = min(height, y + tile.height)
        guard left < right, top < bottom else { return }
        let count = (right - left) * bands
        withUnsafeMutablePixels { pixels in
            for row in top..<bottom {
                let from = tile.base + ((row - y) * tile.width + (left - x)) * bands
                let to = UnsafeMutableRawPointer(pixels) + (row * width + left) * bands
                to.copyMemory(from: from, byteCount: count)
            }
        }
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: byteCount))
    }

    /// `body` given the pixels to write, once this buffer alone holds them
    /// (copied first if a copy of the buffer shares them). Read what it
    /// needs of the buffer (its size) before: the buffer is being changed.
    mutating func withUnsafeMutablePixels<R>(_ body: (UnsafeMutablePointer<UInt8>) throws -> R) rethrows -> R {
        if !isKnownUniquelyReferenced(&memory) { memory = memory.copy() }
        return try body(memory.base.assumingMemoryBound(to: UInt8.self))
    }
}

/// The memory of a `PixelBuffer` (and of its copies until one is written),
/// and its one owner, whether Swift or libvips (g_malloc) allocated it.
private final class PixelMemory: @unchecked Sendable {  // owns a raw pixel allocation, written only through a PixelBuffer that alone holds it
    let width: Int
    let height: Int
    let bands: Int
    let base: UnsafeMutableRawPointer
    private let release: (UnsafeMutableRawPointer) -> Void

    init(width: Int, height: Int, bands: Int, base: UnsafeMutableRawPointer,
         release: @escaping (UnsafeMutableRawPointer) -> Void) {
        self.width = width
        self.height = height
        self.bands = bands
        self.base = base
        self.release = release
        let now = PixelBuffer.liveCount.wrappingAdd(1, ordering: .relaxed).newValue
        var seen = PixelBuffer.peakCount.load(ordering: .relaxed)
        while seen < now {
            let (exchanged, original) = PixelBuffer.peakCount.compareExchange(expected: seen, desired: now,
                                                                              ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    deinit {
        release(base)
        PixelBuffer.liveCount.wrappingSubtract(1, ordering: .relaxed)
    }

    /// A memory of its own holding the same pixels.
    func copy() -> PixelMemory {
        let count = width * height * bands
        let copied = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        copied.copyMemory(from: base, byteCount: count)
        return PixelMemory(width: width, height: height, bands: bands, base: copied, release: { $0.deallocate() })
    }
}

/// An 8-bit sRGB colour.
public struct RGB: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGB(red: 255, green: 255, blue: 255)
    public static let black = RGB(red: 0, green: 0, blue: 0)

    public var description: String {
        "#" + [red, green, blue].map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// The largest difference of one channel (for tests and lossy formats).
    public func distance(to other: RGB) -> Int {
        max(abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)),
            abs(Int(blue) - Int(other.blue)))
    }
}
