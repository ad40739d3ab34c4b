import Foundation
import Glibc
import Vips
import XCTest

// Helpers of the hardening tests: standard input fed through a pipe line
// by line, waiting for a --json event of a run still going, and special
// files. (A child's peak memory: PeakMemory.swift; hand-made image bytes:
// Fixture.swift.)

extension RunningProcess {
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

    /// Asserts what a run stopped by a signal shows: `status`, one line on
    /// standard error saying it was interrupted, and the JSON summary last.
    /// Its JSON events, for what each test checks of them.
    @discardableResult
    func assertInterrupted(_ result: ProcessResult, status: Int32, file: StaticString = #filePath,
                           line: UInt = #line) -> [[String: Any]] {
        XCTAssertEqual(result.status, status, result.summary, file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary, file: file, line: line)
        XCTAssertTrue(result.stderrText.contains("interrupted"), result.summary, file: file, line: line)
        let all = jsonEvents(result, file: file, line: line)
        XCTAssertEqual(all.last?["event"] as? String, "summary", file: file, line: line)
        return all
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
