import Foundation
import Glibc
import Locking
import Logging
@preconcurrency import OpenCombine
@_exported import CollageTestSupport
import XCTest
@testable import CollageKit
@testable import Vips

// Helpers shared by the CollageKit tests: temporary folders and files named
// by bytes, images made with libvips, pixels read back, and a helper that
// runs a CollageRun and collects its events. (Subscribers and sources that
// record what they see: TestSubscribers.swift.)

func errnoText() -> String { String(cString: strerror(errno)) }

extension TemporaryDirectory {
    /// The folder as a path of bytes.
    var pathName: PathName { PathName(path) }

    /// A path inside the folder; `name` may hold slashes.
    func callAsFunction(_ name: String) -> PathName { pathName.appending(Array(name.utf8)) }
    func callAsFunction(bytes name: [UInt8]) -> PathName { pathName.appending(name) }
}

/// A `--diff` test's folder, libvips started: `base/` and `shots/` in it,
/// empty.
func diffFolders() throws -> TemporaryDirectory {
    try Vips.start()
    let folder = try TemporaryDirectory()
    for side in ["base", "shots"] { try makeDirectory(folder(side)) }
    return folder
}

func makeDirectory(_ path: PathName) throws {
    let status = path.withCString { mkdir($0!, 0o755) }
    guard status == 0 else { throw TestFailure("mkdir \(path): \(errnoText())") }
}

func makeSymlink(_ path: PathName, to target: String) throws {
    let status = path.withCString { name in symlink(target, name!) }
    guard status == 0 else { throw TestFailure("symlink \(path): \(errnoText())") }
}

/// Writes `bytes` to `path` (created or truncated), by bytes so any name works.
func writeFile(_ bytes: [UInt8], to path: PathName, mode: mode_t = 0o644) throws {
    let descriptor = path.withCString { open($0!, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
    guard descriptor >= 0 else { throw TestFailure("open \(path): \(errnoText())") }
    defer { close(descriptor) }
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { throw TestFailure("write \(path): \(errnoText())") }
        offset += count
    }
}

func readFile(_ path: PathName) throws -> [UInt8] {
    let descriptor = path.withCString { open($0!, O_RDONLY | O_CLOEXEC) }
    guard descriptor >= 0 else { throw TestFailure("open \(path): \(errnoText())") }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw TestFailure("read \(path): \(errnoText())") }
        if count == 0 { return bytes }
        bytes += chunk[..<count]
    }
}

/// The names in a folder, sorted by bytes, "." and ".." left out.
func listing(_ folder: PathName) throws -> [[UInt8]] {
    guard let handle = folder.withCString({ opendir($0!) }) else { throw TestFailure("opendir \(folder): \(errnoText())") }
    defer { closedir(handle) }
    var names: [[UInt8]] = []
    while let entry = readdir(handle) {
        let name: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
        if name != [46] && name != [46, 46] { names.append(name) }
    }
    return names.sorted { $0.lexicographicallyPrecedes($1) }
}

// MARK: - Images

/// Writes a flat-colour image made with libvips (`suffix` picks the format).
func writeFlatImage(_ path: PathName, _ colour: RGB, width: Int = 60, height: Int = 40,
                    suffix: String = ".png", orientation: Int? = nil) throws {
    let encoded = try Encoder.encode(PixelBuffer(width: width, height: height, fill: colour), suffix: suffix,
                                     orientation: orientation)
    try writeFile(encoded.bytes, to: path)
}

/// Decodes a whole image file to 8-bit sRGB pixels.
func readPixels(_ path: PathName) throws -> PixelBuffer {
    try ImageFile.decode(bytes: readFile(path))
}

// MARK: - Running the pipeline

struct RunResult {
    let outcome: RunOutcome
    let events: [PipelineEvent]

    var written: [WrittenSheet] {
        events.compactMap { if case .written(let sheet) = $0 { return sheet } else { return nil } }
    }
    var rejected: [(path: PathName, reason: RejectReason)] {
        events.compactMap { if case .rejected(let path, let reason, _) = $0 { return (path, reason) } else { return nil } }
    }
    var failed: [(path: PathName, error: String)] {
        events.compactMap { if case .failed(let path, let error) = $0 { return (path, error) } else { return nil } }
    }
}

/// Runs a `--diff` run, configured as its resolution configures it, to the end,
/// counted by `instrumentation`: its outcome and every event, in order.
func runDiff(_ configuration: CollageConfiguration, instrumentation: RunInstrumentation = RunInstrumentation())
    -> (outcome: RunOutcome, events: [PipelineEvent]) {
    let diff = ResolvedRun.diff(configuration)
    let run = CollageRun(configuration: diff, source: DiffSheets(configuration: diff, instrumentation: instrumentation),
                         instrumentation: instrumentation, logger: Logger(label: "test"))
    let log = EventLog()
    let subscription = run.events.sink { log.record($0) }
    let outcome = run.run()
    subscription.cancel()
    return (outcome, log.events)
}

/// Runs a CollageRun to the end and returns its outcome and every event, in order.
func runCollage(_ configuration: CollageConfiguration) -> RunResult {
    runCollageCounted(configuration).result
}

/// `runCollage`, with the run's own counts (decodes, folders listed, scans).
func runCollageCounted(_ configuration: CollageConfiguration) -> (result: RunResult, counts: RunInstrumentation.Counts) {
    let run = CollageRun(configuration: configuration)
    let log = EventLog()
    let subscription = run.events.sink { log.record($0) }
    let outcome = run.run()
    subscription.cancel()
    return (RunResult(outcome: outcome, events: log.events), run.instrumentation.snapshot)
}

/// A pipe whose ends are closed when the object goes away (unless taken).
final class TestPipe: Sendable {
    let readEnd: Int32
    private let writer: Locked<Int32>
    var writeEnd: Int32 { writer.withLock { $0 } }

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe: \(errnoText())") }
        readEnd = ends[0]
        writer = Locked(ends[1])
    }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) }
            precondition(count > 0, "pipe write failed")
            offset += count
        }
    }

    func closeWriteEnd() {
        writer.withLock { end in
            if end >= 0 { close(end); end = -1 }
        }
    }

    /// Whether unread bytes wait in the pipe (poll, without reading them).
    var hasUnreadBytes: Bool {
        var entry = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && (entry.revents & Int16(POLLIN)) != 0
    }

    deinit {
        closeWriteEnd()
        close(readEnd)
    }
}

/// A page of text-like stripes (`--diff` tests), a 30x12 box of `colour`
/// at `x`, `y` painted on it, `width` x `height`, as PNG bytes.
func stripedPage(box: (x: Int, y: Int, colour: RGB)?, width: Int = 240, height: Int = 400) throws -> [UInt8] {
    try Encoder.encode(PixelBuffer(width: width, height: height) { x, y in
        if let box, (box.x..<box.x + 30).contains(x), (box.y..<box.y + 12).contains(y) { return box.colour }
        return y % 9 < 2 && x % 50 < 40 ? RGB(red: 40, green: 40, blue: 40) : .white
    }, suffix: ".png", orientation: nil).bytes
}
