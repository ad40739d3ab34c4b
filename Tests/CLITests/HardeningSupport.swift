import Foundation
import Glibc
import Synchronization
import Vips
import CollageTestSupport
import XCTest

// Helpers of the hardening tests: a child's peak memory, standard
// input fed through a pipe line by line, waiting for a --json event of a
// run still going, special files, and hand-made image bytes (broken,
// bombs, odd formats, other formats in disguise).

// MARK: - Peak memory of a child (the seeded PRNG is CollageTestSupport's)

/// How a run ended, and the most memory it held.
struct MeasuredResult {
    var result: ProcessResult
    /// Peak resident set size of the child (VmHWM sampled while it ran), in KiB.
    var maxRSSKilobytes: Int
    var maxRSSMegabytes: Double { Double(maxRSSKilobytes) / 1024 }
}

extension RunningProcess {
    /// Like `wait(timeout:)`, but reaps the child with wait4 to learn its
    /// peak memory. (The runner's own wait then only collects what is left
    /// in the pipes: the child is already gone.)
    func waitMeasured(timeout: Double) -> MeasuredResult {
        let deadline = started + timeout
        // The child's own peak: VmHWM, sampled while it runs (below, the
        // output is pumped to the end first). wait4's ru_maxrss is no good
        // here: Linux carries the spawning process's high-water mark into
        // the child at exec, so in a test process that has grown (the whole
        // suite in one xctest) every child would seem that big.
        let sampled = HighWaterSampler(pid: pid)
        pump(until: deadline)
        var raw: Int32 = 0
        var usage = rusage()
        var timedOut = false
        var ended = 0.0
        while true {
            let reaped = wait4(pid, &raw, WNOHANG, &usage)
            if reaped == pid { ended = monotonicNow(); break }
            if reaped < 0 && errno != EINTR { ended = monotonicNow(); break }
            if monotonicNow() >= deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                wait4(pid, &raw, 0, &usage)
                ended = monotonicNow()
                break
            }
            usleep(2000)
        }
        var result = wait(timeout: 0)  // the rest of the output; the pid is already reaped
        let termination = raw & 0x7f
        result.status = termination == 0 ? (raw >> 8) & 0xff : nil
        result.signal = termination != 0 && termination != 0x7f ? termination : nil
        result.timedOut = timedOut
        result.elapsed = ended - started
        let highWater = sampled.stop()
        return MeasuredResult(result: result, maxRSSKilobytes: highWater > 0 ? highWater : Int(usage.ru_maxrss))
    }

    /// Whether the child has exited (a zombie not yet reaped), without reaping it.
    var hasExited: Bool {
        guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/stat")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), close + 2 < bytes.count else { return true }
        return bytes[close + 2] == UInt8(ascii: "Z") || bytes[close + 2] == UInt8(ascii: "X")
    }

    /// The --json events whose lines have arrived so far (a line still being
    /// written is left for later).
    var eventsSoFar: [[String: Any]] {
        var lines = stdout.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()  // the part after the last newline
        return lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    /// Reads output until an event matching `match` has arrived (true), the
    /// child ends, or `timeout` seconds pass (false).
    @discardableResult
    func awaitEvent(timeout: Double = 60, _ match: ([String: Any]) -> Bool) -> Bool {
        pump(until: monotonicNow() + timeout) { eventsSoFar.contains(where: match) }
    }

    /// Reads output until standard error holds `text`.
    @discardableResult
    func awaitStderr(_ text: String, timeout: Double = 60) -> Bool {
        pump(until: monotonicNow() + timeout) { String(decoding: stderr, as: UTF8.self).contains(text) }
    }
}

/// An event's field, for matching.
func field(_ event: [String: Any], _ key: String) -> String? { event[key] as? String }

// MARK: - Standard input through a pipe

/// A FIFO the child reads as its standard input, written line by line by
/// the test while the run goes on. The child is started through
/// `sh -c 'exec "$0" "$@" <FIFO'`, so its pid is still the binary's.
final class StandardInputFeed {
    let path: String
    private var descriptor: Int32 = -1

    init(path: String) throws {
        guard mkfifo(path, 0o644) == 0 else { throw SpawnError.system("mkfifo \(path)", errno) }
        self.path = path
        // Read-write: never blocks, whether or not the child has opened it yet.
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw SpawnError.system("open \(path)", errno) }
    }

    /// Wraps argv (`command(...)`, the binary possibly behind setpriv) so
    /// the binary's standard input is this FIFO.
    func wrap(_ argv: [[UInt8]]) -> [[UInt8]] {
        guard let index = argv.firstIndex(of: b(Package.binary)) else { return argv }
        let script = "exec \"$0\" \"$@\" <'\(path)'"
        return Array(argv[..<index]) + [b("sh"), b("-c"), b(script)] + Array(argv[index...])
    }

    func send(_ line: String) { send(b(line + "\n")) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// End of the list: the child reads end-of-file.
    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}

// MARK: - Special files

/// Binds a UNIX socket at `path` (then closes it: the socket file stays).
func makeUnixSocket(at path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in bytes.enumerated() { raw[index] = byte }
        raw[bytes.count] = 0
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    return bound == 0
}

/// A character device node (root only).
func makeCharacterDevice(at path: String, major: UInt32, minor: UInt32) -> Bool {
    mknod(path, S_IFCHR | 0o644, makedev(major, minor)) == 0
}

private func makedev(_ major: UInt32, _ minor: UInt32) -> dev_t {
    // glibc's gnu_dev_makedev.
    let ma = UInt64(major), mi = UInt64(minor)
    return dev_t((mi & 0xff) | ((ma & 0xfff) << 8) | ((mi & ~0xff) << 12) | ((ma & ~0xfff) << 32))
}

// MARK: - Image bytes

enum Fixture {
    /// Coarse colour noise from a fixed seed: it does not compress, so its
    /// encoded size is about its pixel size, and a part of the file is a
    /// part of the pixels.
    static func noise(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var random = SplitMix64(seed: seed)
        return PixelBuffer(width: width, height: height) { _, _ in
            let value = random.next()
            return RGB(red: UInt8(value & 0xff), green: UInt8((value >> 8) & 0xff), blue: UInt8((value >> 16) & 0xff))
        }
    }

    // MARK: PNG

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 { pngCRC32(bytes) }

    static func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// The chunks of a PNG: type, offset of the chunk (its length field), data length.
    static func pngChunks(_ png: [UInt8]) -> [(type: String, offset: Int, length: Int)] {
        var chunks: [(String, Int, Int)] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            chunks.append((type, offset, length))
            offset += 12 + length
        }
        return chunks
    }

    /// Recomputes the CRC of the chunk at `offset` (after its data was changed).
    static func fixCRC(_ png: inout [UInt8], chunkAt offset: Int) {
        let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        guard offset + 12 + length <= png.count else { return }
        let crc = be32(crc32(png[(offset + 4)..<(offset + 8 + length)]))
        png.replaceSubrange((offset + 8 + length)..<(offset + 12 + length), with: crc)
    }

    /// A PNG whose header claims `width` x `height` with one tiny IDAT.
    static func hugeHeaderPNG(width: UInt32, height: UInt32) -> [UInt8] {
        CollageTestSupport.hugeHeaderPNG(width: width, height: height)
    }

    // MARK: JPEG

    /// The marker segments of a JPEG up to its first SOS: marker, offset of
    /// the 0xFF, length field value.
    static func jpegSegments(_ jpeg: [UInt8]) -> [(marker: UInt8, offset: Int, length: Int)] {
        var segments: [(UInt8, Int, Int)] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            segments.append((marker, offset, length))
            if marker == 0xDA { break }
            offset += 2 + length
        }
        return segments
    }

    /// The offset of the SOF0/SOF1/SOF2 segment.
    static func sofOffset(_ jpeg: [UInt8]) -> Int? {
        jpegSegments(jpeg).first { [0xC0, 0xC1, 0xC2].contains($0.marker) }?.offset
    }

    /// The same JPEG with its frame header claiming another size.
    static func jpeg(_ jpeg: [UInt8], claiming width: Int, _ height: Int) -> [UInt8] {
        guard let sof = sofOffset(jpeg) else { return jpeg }
        var bytes = jpeg
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xff)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xff)
        return bytes
    }

    /// The same JPEG with an APP1 segment holding `payload` right after SOI.
    static func jpeg(_ jpeg: [UInt8], insertingAPP1 payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xff)] + payload
            + Array(jpeg[2...])
    }

    // MARK: GIF, PDF, and things that are not images

    /// A GIF89a with one frame per colour.
    static func animatedGIF(width: Int, height: Int, frames: [RGB]) -> [UInt8] {
        CollageTestSupport.animatedGIF(width: width, height: height, frames: frames)
    }

    /// A one-page PDF with a filled blue rectangle.
    static func pdf() -> [UInt8] { minimalPDF(width: 400, height: 300) }

    /// A landscape SVG filled with one colour: libvips' svgload would render it.
    static func svg(_ colour: RGB) -> [UInt8] {
        b("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"300\">"
          + "<rect width=\"400\" height=\"300\" fill=\"\(colour)\"/></svg>\n")
    }

    static let postScript = b("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 400 300\n"
                              + "1 0 1 setrgbcolor 0 0 400 300 rectfill showpage\n%%EOF\n")

    /// ImageMagick Vector Graphics: a script ImageMagick would draw.
    static let mvg = b("push graphic-context\nviewbox 0 0 400 300\nfill magenta\nrectangle 0 0 400 300\n"
                       + "pop graphic-context\n")

    /// ImageMagick Scripting Language: reads and writes files when run.
    static let msl = b("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<image>\n<read filename=\"/etc/passwd\"/>\n"
                       + "<write filename=\"/tmp/collage-msl-was-run.png\"/>\n</image>\n")

    static let html = b("<!DOCTYPE html>\n<html><head><title>x</title></head><body><img src=\"a.jpg\"></body></html>\n")
}

// MARK: - Test-case helpers

extension CLITestCase {
    /// Runs a libvips-tools command (`vips ...`) in the test folder; fails
    /// the test with its standard error if it fails.
    @discardableResult
    func vipsTool(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        let result = try runProcess(arguments.map(b), directory: dir, timeout: 120)
        guard result.status == 0 else {
            XCTFail("\(arguments.joined(separator: " ")): \(result.summary)", file: file, line: line)
            throw XCTSkip("cannot make a fixture with \(arguments.first ?? "")")
        }
        return result
    }

    /// Starts the binary (in the test folder) without waiting for it.
    func start(_ arguments: [String], as user: TestUser? = nil, feed: StandardInputFeed? = nil) throws -> RunningProcess {
        var argv = command(arguments.map(b), as: user)
        if let feed { argv = feed.wrap(argv) }
        return try RunningProcess(arguments: argv, directory: dir)
    }

    /// Runs the binary to the end and measures its peak memory.
    func measuredCollage(_ arguments: [String], timeout: Double = 120) throws -> MeasuredResult {
        try start(arguments).waitMeasured(timeout: timeout)
    }

    /// The hidden names in a folder (temporary files, locks).
    func hiddenNames(_ relative: String = "") -> [String] {
        listingText(relative).filter { $0.hasPrefix(".") }
    }

    /// Asserts that no lock or temporary file of collage is left in a folder.
    func assertNoLeftovers(_ relative: String = "", file: StaticString = #filePath, line: UInt = #line) {
        let left = hiddenNames(relative).filter { $0.contains(".collage-tmp-") || $0.hasSuffix(".collage-lock") }
        XCTAssertEqual(left, [], "no temporary or lock file left in '\(relative)'", file: file, line: line)
    }

    /// The `failed` / `rejected` events of a path.
    func verdicts(_ all: [[String: Any]], _ path: String) -> [String] {
        all.filter { field($0, "path") == path && ["failed", "rejected", "accepted"].contains(field($0, "event") ?? "") }
            .map { field($0, "event")! + ($0["reason"].map { ":\($0)" } ?? "") }
    }

    /// Every pixel of the picture (sampled on a `step` grid) within `tolerance` of `colour`.
    func pixels(of picture: PixelBuffer, near colour: RGB, tolerance: Int, step: Int = 3) -> Int {
        var count = 0
        var y = 0
        while y < picture.height {
            var x = 0
            while x < picture.width {
                if picture.pixel(x: x, y: y).distance(to: colour) <= tolerance { count += 1 }
                x += step
            }
            y += step
        }
        return count
    }
}


/// Samples a running process's VmHWM (its peak resident memory, per address
/// space, so fresh at exec) every 2 ms until stopped.
final class HighWaterSampler: Sendable {
    /// The highest VmHWM seen (kB), and whether to go on sampling.
    private let state = Mutex((peak: 0, running: true))
    private let finished = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        DispatchQueue.global().async { [self] in
            while state.withLock({ $0.running }) {
                let value = Self.highWater(pid)
                state.withLock { $0.peak = max($0.peak, value) }
                usleep(2000)
            }
            finished.signal()
        }
    }

    /// Stops sampling; the highest VmHWM seen, in kB.
    func stop() -> Int {
        state.withLock { $0.running = false }
        finished.wait()
        return state.withLock { $0.peak }
    }

    static func highWater(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
