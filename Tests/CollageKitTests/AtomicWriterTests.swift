import Dispatch
import Glibc
@preconcurrency import OpenCombine
import XCTest
@testable import CollageKit

/// Bytes held in an array, for the writer.
struct TestBytes: UnsafeRawBufferPointerOwner {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    init(count: Int, seed: UInt8) { bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}

/// The atomic save: a failed write (full disk, read-only folder) throws
/// with the right code, leaves the previous file byte for byte, and leaves
/// no temporary file; a successful one replaces the file and keeps its
/// permission bits.
final class AtomicWriterTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var mountPoint: PathName?

    override func setUpWithError() throws { folder = try TemporaryDirectory() }

    override func tearDown() {
        if let mountPoint {
            _ = mountPoint.withCString { umount2($0!, Int32(MNT_DETACH)) }
            self.mountPoint = nil
        }
        folder = nil
    }

    /// A small tmpfs of `size` mounted in the temporary folder; unmounted in tearDown.
    private func mountTmpfs(size: String) throws -> PathName {
        guard getuid() == 0 else {
            throw XCTSkip("mounting a small tmpfs to fill it or make it read-only needs root; run the tests as root")
        }
        let point = folder("mnt")
        try makeDirectory(point)
        let status = point.withCString { mount("tmpfs", $0!, "tmpfs", 0, "size=\(size),mode=0755") }
        guard status == 0 else {
            let code = errno
            if code == EPERM {
                throw XCTSkip("root, but mount(2) is not permitted here (no CAP_SYS_ADMIN): \(String(cString: strerror(code)))")
            }
            throw TestFailure("mount tmpfs: \(String(cString: strerror(code)))")
        }
        mountPoint = point
        return point
    }

    private func remountReadOnly(_ point: PathName) throws {
        let flags = UInt(MS_REMOUNT) | UInt(MS_RDONLY)
        let status = point.withCString { mount("tmpfs", $0!, "tmpfs", flags, nil) }
        guard status == 0 else { throw TestFailure("remount ro: \(errnoText())") }
    }

    /// Writes `bytes` to `path` until the filesystem is full; returns how much went in.
    @discardableResult
    private func fill(_ path: PathName, upTo limit: Int = .max) throws -> Int {
        let descriptor = path.withCString { open($0!, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) }
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(errnoText())") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        var written = 0
        while written < limit {
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, min($0.count, limit - written)) }
            if count <= 0 {
                XCTAssertEqual(errno, ENOSPC, "the filler stops on a full disk")
                break
            }
            written += count
        }
        return written
    }

    private func mode(_ path: PathName) -> mode_t {
        var info = stat()
        XCTAssertEqual(path.withCString { stat($0!, &info) }, 0, "stat \(path)")
        return info.st_mode & 0o7777
    }

    private func inode(_ path: PathName) -> UInt64 {
        var info = stat()
        XCTAssertEqual(path.withCString { stat($0!, &info) }, 0, "stat \(path)")
        return UInt64(info.st_ino)
    }

    private func assertThrows(_ code: OutputError.Code, _ body: () throws(OutputError) -> PathName,
                              file: StaticString = #filePath, line: UInt = #line) {
        do throws(OutputError) {
            let path = try body()
            XCTFail("wrote \(path), expected \(code)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        }
    }

    private let names: ([[UInt8]]) -> [String] = { $0.map { String(decoding: $0, as: UTF8.self) } }

    // MARK: - Success

    func testReplacesTheFileAndKeepsItsPermissionBits() throws {
        let target = folder("out.png")
        let old = TestBytes(count: 5000, seed: 1).bytes
        try writeFile(old, to: target)
        XCTAssertEqual(target.withCString { chmod($0!, 0o640) }, 0)
        // A second name for the old file: a reader holding it keeps the old bytes.
        let reader = folder("reader-view")
        XCTAssertEqual(target.withCString { from in reader.withCString { link(from!, $0!) } }, 0)
        let oldInode = inode(target)

        let new = TestBytes(count: 7000, seed: 2)
        let written = try AtomicWriter().write(new, to: target)
        XCTAssertEqual(written, target)
        XCTAssertEqual(try readFile(target), new.bytes)
        XCTAssertEqual(mode(target), 0o640, "permission bits kept")
        XCTAssertNotEqual(inode(target), oldInode, "a new file renamed into place, not the old one rewritten")
        XCTAssertEqual(try readFile(reader), old, "the previous file was never touched")
        XCTAssertEqual(names(try listing(folder.pathName)), ["out.png", "reader-view"], "no temporary file left")
    }

    func testCreatesANewFile() throws {
        let target = folder("new.jpg")
        let bytes = TestBytes(count: 100, seed: 3)
        XCTAssertEqual(try AtomicWriter().write(bytes, to: target), target)
        XCTAssertEqual(try readFile(target), bytes.bytes)
        XCTAssertEqual(names(try listing(folder.pathName)), ["new.jpg"])
    }

    func testAwkwardNames() throws {
        for name: [UInt8] in [Array("-dash [1].png".utf8), [0xFF, 0x20] + Array("x.png".utf8), Array("new\nline.png".utf8)] {
            let target = folder(bytes: name)
            let bytes = TestBytes(Array(name))
            _ = try AtomicWriter().write(bytes, to: target)
            XCTAssertEqual(try readFile(target), name)
        }
        XCTAssertEqual(try listing(folder.pathName).count, 3)
    }

    func testSaveIsAFutureOfThePath() throws {
        let target = folder("future.png")
        let bytes = TestBytes(count: 10, seed: 4)
        let done = DispatchSemaphore(value: 0)
        var result: Result<PathName, OutputError>?
        let cancellable = AtomicWriter().save(bytes, to: target).sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { result = .failure(error) }
                done.signal()
            },
            receiveValue: { result = .success($0) })
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(try result?.get(), target)
        XCTAssertEqual(try readFile(target), bytes.bytes)
        cancellable.cancel()
    }

    // MARK: - Failures

    func testFullFilesystemFailsWithIOErrorAndKeepsTheOldFile() throws {
        let point = try mountTmpfs(size: "256k")
        let target = point.appending(Array("collage.jpg".utf8))
        let old = TestBytes(count: 3000, seed: 5).bytes
        try writeFile(old, to: target)
        // Fill half, so the temporary file is created and the write fails part-way.
        try fill(point.appending(Array("filler".utf8)), upTo: 128 * 1024)

        assertThrows(.ioError) { () throws(OutputError) -> PathName in
            try AtomicWriter().write(TestBytes(count: 512 * 1024, seed: 6), to: target)
        }
        XCTAssertEqual(try readFile(target), old, "the old file, byte for byte")
        XCTAssertEqual(names(try listing(point)), ["collage.jpg", "filler"], "no temporary file left")
    }

    func testCompletelyFullFilesystem() throws {
        let point = try mountTmpfs(size: "256k")
        let target = point.appending(Array("collage.png".utf8))
        let old = TestBytes(count: 2000, seed: 7).bytes
        try writeFile(old, to: target)
        let filled = try fill(point.appending(Array("filler".utf8)))
        XCTAssertGreaterThan(filled, 200 * 1024)

        assertThrows(.ioError) { () throws(OutputError) -> PathName in
            try AtomicWriter().write(TestBytes(count: 64 * 1024, seed: 8), to: target)
        }
        XCTAssertEqual(try readFile(target), old)
        XCTAssertEqual(names(try listing(point)), ["collage.png", "filler"])
    }

    func testReadOnlyFilesystemFailsWithCannotCreate() throws {
        let point = try mountTmpfs(size: "256k")
        let target = point.appending(Array("collage.webp".utf8))
        let old = TestBytes(count: 1500, seed: 9).bytes
        try writeFile(old, to: target)
        try remountReadOnly(point)

        assertThrows(.cannotCreate) { () throws(OutputError) -> PathName in
            try AtomicWriter().write(TestBytes(count: 100, seed: 10), to: target)
        }
        XCTAssertEqual(try readFile(target), old)
        XCTAssertEqual(names(try listing(point)), ["collage.webp"])
    }

    func testMissingFolderFailsWithCannotCreate() {
        let target = folder("no/such/folder/out.png")
        assertThrows(.cannotCreate) { () throws(OutputError) -> PathName in
            try AtomicWriter().write(TestBytes(count: 10, seed: 11), to: target)
        }
    }

    func testCancelledWriterLeavesNothing() throws {
        let target = folder("out.png")
        try writeFile(Array("old".utf8), to: target)
        let writer = AtomicWriter()
        writer.cancel()
        assertThrows(.cancelled) { () throws(OutputError) -> PathName in
            try writer.write(TestBytes(count: 10, seed: 12), to: target)
        }
        XCTAssertEqual(try readFile(target), Array("old".utf8))
        XCTAssertEqual(names(try listing(folder.pathName)), ["out.png"])
    }

    func testLeftoversOfKilledRunsAreRemovedAndNothingElse() throws {
        let target = folder("out.png")
        let prefix = AtomicWriter.temporaryPrefix(for: target)
        XCTAssertEqual(String(decoding: prefix, as: UTF8.self), ".out.png.collage-tmp-")
        try writeFile([], to: folder(bytes: prefix + Array("abcdefghijkl".utf8)))  // a killed run's file
        try writeFile([], to: folder(bytes: prefix + Array("short".utf8)))         // not one of ours
        try writeFile([], to: folder(".other.png.collage-tmp-abcdefghijkl"))       // another output's
        try writeFile([], to: target)
        AtomicWriter.removeLeftovers(beside: target)
        XCTAssertEqual(names(try listing(folder.pathName)),
                       [".other.png.collage-tmp-abcdefghijkl", ".out.png.collage-tmp-short", "out.png"])
    }
}
