import CollageTestSupport
import Glibc
import XCTest
@testable import Vips

/// Which mappings `Vips.releaseReadOnlyFilePages` takes out of the resident
/// set, and that it takes out pages that were only read while keeping every
/// page the process wrote (a relocated read-only segment is written, then
/// made read-only: losing those pages would undo its relocations).
final class LibraryPagesTests: XCTestCase {
    private let sample = """
        55d0a0000000-55d0a0200000 r-xp 00000000 fd:01 1001 /usr/lib/x86_64-linux-gnu/libvips.so.42
        Size:               2048 kB
        Rss:                 520 kB
        Private_Dirty:         0 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        VmFlags: rd ex mr mw me
        55d0a0200000-55d0a0210000 r--p 00200000 fd:01 1001 /usr/lib/x86_64-linux-gnu/libvips.so.42
        Rss:                  64 kB
        Private_Dirty:         8 kB
        Anonymous:             8 kB
        Swap:                  0 kB
        VmFlags: rd mr mw me ac
        55d0a0210000-55d0a0214000 rw-p 00210000 fd:01 1001 /usr/lib/x86_64-linux-gnu/libvips.so.42
        Rss:                  16 kB
        Anonymous:             0 kB
        VmFlags: rd wr mr mw me ac
        55d0a0214000-55d0a0218000 r--p 00214000 fd:01 1001 /usr/lib/x86_64-linux-gnu/libvips.so.42
        Rss:                   0 kB
        Anonymous:             0 kB
        VmFlags: rd mr mw me
        7f0000000000-7f0000100000 r--p 00000000 00:00 0
        Rss:                1024 kB
        Anonymous:             0 kB
        VmFlags: rd mr mw me
        7f0000100000-7f0000104000 r--s 00000000 fd:01 2002 /var/cache/fontconfig/a.cache-8
        Rss:                  16 kB
        Anonymous:             0 kB
        VmFlags: rd sh mr mw me ms
        7f0000104000-7f0000108000 r--p 00000000 fd:01 3003 /usr/lib/libswapped.so
        Rss:                   8 kB
        Anonymous:             0 kB
        Swap:                  4 kB
        VmFlags: rd mr mw me
        7f0000108000-7f000010c000 r-xp 00000000 fd:01 4004 /usr/lib/liblocked.so
        Rss:                  16 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me lo
        7f000010c000-7f0000110000 r--p 00000000 fd:01 5005 /opt/with space/lib a.so
        Rss:                  12 kB
        Private_Dirty:         0 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        VmFlags: rd mr mw me
        7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]
        Rss:                   8 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me de sd

        """

    func testOnlyReadOnlyPrivateFileMappingsWithNoWrittenPageAreReleasable() {
        XCTAssertEqual(Vips.releasableMappings(smaps: sample), [
            .init(start: 0x55d0a0000000, end: 0x55d0a0200000, residentBytes: 520 * 1024),
            .init(start: 0x7f000010c000, end: 0x7f0000110000, residentBytes: 12 * 1024),
        ])
    }

    func testMalformedTextReleasesNothing() {
        XCTAssertEqual(Vips.releasableMappings(smaps: ""), [])
        XCTAssertEqual(Vips.releasableMappings(smaps: "Rss: 12 kB\nAnonymous: 0 kB\n"), [])
        XCTAssertEqual(Vips.releasableMappings(smaps: "zzzz-1000 r--p 0 fd:01 7 /x\nRss: 4 kB\n"), [])
    }

    /// Two private mappings of one file: one only read, one written and then
    /// made read-only. After the release the read one holds no resident page
    /// and still reads the file; the written one still reads what was written.
    func testReleasesPagesThatWereReadAndKeepsPagesThatWereWritten() throws {
        let folder = try TemporaryDirectory()
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = 16 * pageSize
        let path = folder.file("mapped.bin")
        try writeBytes((0..<length).map { UInt8(truncatingIfNeeded: $0 / pageSize + 1) }, to: path)
        let descriptor = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }

        let read = try XCTUnwrap(mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0))
        XCTAssertNotEqual(read, UnsafeMutableRawPointer(bitPattern: -1))
        defer { munmap(read, length) }
        let written = try XCTUnwrap(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0))
        XCTAssertNotEqual(written, UnsafeMutableRawPointer(bitPattern: -1))
        defer { munmap(written, length) }

        var sum = 0
        for page in 0..<16 {
            sum += Int(read.load(fromByteOffset: page * pageSize, as: UInt8.self))
            written.storeBytes(of: 0xAB, toByteOffset: page * pageSize, as: UInt8.self)
        }
        XCTAssertEqual(sum, (1...16).reduce(0, +))
        XCTAssertEqual(mprotect(written, length, PROT_READ), 0)
        XCTAssertEqual(try residentKiB(of: read), 16 * pageSize / 1024, "every page of the read mapping is resident")

        let released = try XCTUnwrap(Vips.releaseReadOnlyFilePages())
        XCTAssertGreaterThanOrEqual(released, length)
        XCTAssertEqual(try residentKiB(of: read), 0, "the read pages left the resident set")
        XCTAssertEqual(try residentKiB(of: written), 16 * pageSize / 1024, "the written pages stayed")

        for page in 0..<16 {
            XCTAssertEqual(read.load(fromByteOffset: page * pageSize, as: UInt8.self), UInt8(page + 1),
                           "read again from the file")
            XCTAssertEqual(written.load(fromByteOffset: page * pageSize, as: UInt8.self), 0xAB,
                           "what the process wrote is still there")
        }
    }

    /// The resident KiB of the mapping that starts at `address`, from /proc/self/smaps.
    private func residentKiB(of address: UnsafeMutableRawPointer) throws -> Int {
        let smaps = try XCTUnwrap(Vips.readWholeFile("/proc/self/smaps"))
        let start = String(UInt(bitPattern: address), radix: 16)
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            if line.hasPrefix(start + "-") {
                inMapping = true
            } else if inMapping, line.hasPrefix("Rss:") {
                return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
            }
        }
        throw TestFailure("no mapping at \(start) in /proc/self/smaps")
    }
}
