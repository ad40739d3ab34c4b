import CollageTestSupport
import Glibc
import XCTest
@testable import ProcessPages

/// Which mappings `ProcessPages.releaseReadOnlyFilePages` takes out of the resident
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
        XCTAssertEqual(ProcessPages.releasableMappings(smaps: sample), [
            .init(start: 0x55d0a0000000, end: 0x55d0a0200000, residentBytes: 520 * 1024,
                  file: "fd:01 1001", path: "/usr/lib/x86_64-linux-gnu/libvips.so.42"),
            .init(start: 0x7f000010c000, end: 0x7f0000110000, residentBytes: 12 * 1024,
                  file: "fd:01 5005", path: "/opt/with space/lib a.so"),
        ])
    }

    func testMalformedTextReleasesNothing() {
        XCTAssertEqual(ProcessPages.releasableMappings(smaps: ""), [])
        XCTAssertEqual(ProcessPages.releasableMappings(smaps: "Rss: 12 kB\nAnonymous: 0 kB\n"), [])
        XCTAssertEqual(ProcessPages.releasableMappings(smaps: "zzzz-1000 r--p 0 fd:01 7 /x\nRss: 4 kB\n"), [])
    }

    /// Two private mappings of one file: one only read, one written and then
    /// made read-only. After the release the read one holds no resident page
    /// and still reads the file; the written one still reads what was written.
    func testReleasesPagesThatWereReadAndKeepsPagesThatWereWritten() throws {
        let folder = try TemporaryDirectory()
        let length = 16 * pageSize
        let descriptor = try pagedFile(folder.file("mapped.bin"), pages: 16)
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

        let released = try XCTUnwrap(ProcessPages.releaseReadOnlyFilePages())
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

    func testLoadedCodeIsTheExecutableAndSharedLibrariesNotGconvModulesFontsOrInputs() {
        let exe = "/usr/bin/collage"
        XCTAssertTrue(ProcessPages.isLoadedCode(exe, executable: exe))
        XCTAssertTrue(ProcessPages.isLoadedCode("/usr/lib/x86_64-linux-gnu/libvips.so.42.16.1", executable: exe))
        XCTAssertTrue(ProcessPages.isLoadedCode("/usr/lib/x86_64-linux-gnu/vips-modules-8.14/vips-heif.so", executable: exe))
        XCTAssertFalse(ProcessPages.isLoadedCode("/usr/lib/x86_64-linux-gnu/gconv/UTF-16.so", executable: exe))
        XCTAssertFalse(ProcessPages.isLoadedCode("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", executable: exe))
        XCTAssertFalse(ProcessPages.isLoadedCode("/photos/a.so.jpg/IMG_0001.webp", executable: exe))
        XCTAssertFalse(ProcessPages.isLoadedCode("/usr/bin/other", executable: exe))
        XCTAssertFalse(ProcessPages.isLoadedCode("/usr/bin/collage", executable: nil))
    }

    /// A recorded mapping is advised again only while maps shows it with the
    /// same range, the same file and no write permission.
    func testOnlyMappingsStillInPlaceAreReleasedAgain() {
        let recorded: [ProcessPages.ReleasableMapping] = [
            .init(start: 0x1000, end: 0x3000, residentBytes: 4096, file: "fd:01 7", path: "/lib/a.so"),
            .init(start: 0x5000, end: 0x6000, residentBytes: 4096, file: "fd:01 8", path: "/lib/b.so"),
            .init(start: 0x7000, end: 0x8000, residentBytes: 4096, file: "fd:01 9", path: "/lib/c.so"),
            .init(start: 0x9000, end: 0xa000, residentBytes: 4096, file: "fd:01 10", path: "/lib/d.so"),
            .init(start: 0xb000, end: 0xc000, residentBytes: 4096, file: "fd:01 11", path: "/lib/e.so"),
        ]
        let maps = """
            1000-3000 r-xp 00000000 fd:01 7                          /lib/a.so
            5000-6000 rw-p 00000000 00:00 0
            7000-7800 r--p 00000000 fd:01 9                          /lib/c.so
            9000-a000 rw-p 00001000 fd:01 10                         /lib/d.so
            b000-c000 r--p 00002000 fd:01 11                         /lib/e.so

            """
        XCTAssertEqual(ProcessPages.stillMapped(recorded, maps: maps).map(\.start), [0x1000, 0xb000])
        XCTAssertEqual(ProcessPages.stillMapped(recorded, maps: ""), [])
        XCTAssertEqual(ProcessPages.stillMapped([], maps: maps), [])
    }

    /// A library-like file mapped and read before the release at start, read
    /// again, leaves the resident set again; a mapping put where a released
    /// one was (another file, or anonymous memory the process wrote) is not
    /// touched.
    func testCodePagesReadSinceStartLeaveAgainAndWhatReplacedAMappingIsKept() throws {
        let folder = try TemporaryDirectory()
        let length = 8 * pageSize
        let descriptor = try pagedFile(folder.file("libfake.so.1"), pages: 8)
        defer { close(descriptor) }
        func map() throws -> UnsafeMutableRawPointer {
            let pointer = try XCTUnwrap(mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0))
            XCTAssertNotEqual(pointer, UnsafeMutableRawPointer(bitPattern: -1))
            return pointer
        }
        func readAll(_ pointer: UnsafeMutableRawPointer) -> Int {
            (0..<8).reduce(0) { $0 + Int(pointer.load(fromByteOffset: $1 * pageSize, as: UInt8.self)) }
        }
        let library = try map()
        defer { munmap(library, length) }
        let replaced = try map()
        XCTAssertEqual(readAll(library) + readAll(replaced), 2 * (1...8).reduce(0, +))
        XCTAssertNotNil(ProcessPages.releaseReadOnlyFilePages())
        XCTAssertEqual(try residentKiB(of: library), 0)

        // The second mapping goes; anonymous memory is written where it was.
        XCTAssertEqual(munmap(replaced, length), 0)
        let anonymous = try XCTUnwrap(mmap(replaced, length, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0))
        XCTAssertEqual(anonymous, replaced)
        defer { munmap(anonymous, length) }
        for page in 0..<8 { anonymous.storeBytes(of: 0xCD, toByteOffset: page * pageSize, as: UInt8.self) }

        XCTAssertEqual(readAll(library), (1...8).reduce(0, +))
        XCTAssertEqual(try residentKiB(of: library), length / 1024, "read again since the start")
        XCTAssertGreaterThanOrEqual(ProcessPages.releaseLoadedCodePagesAgain(), 1)
        XCTAssertEqual(try residentKiB(of: library), 0, "left the resident set again")
        XCTAssertEqual(readAll(library), (1...8).reduce(0, +), "and still reads the file")
        for page in 0..<8 {
            XCTAssertEqual(anonymous.load(fromByteOffset: page * pageSize, as: UInt8.self), 0xCD,
                           "what replaced a released mapping was not touched")
        }
    }

    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// A file of `pages` pages, each byte of page N holding N + 1, opened to read.
    private func pagedFile(_ path: String, pages: Int) throws -> Int32 {
        try writeBytes((0..<pages * pageSize).map { UInt8(truncatingIfNeeded: $0 / pageSize + 1) }, to: path)
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(path)") }
        return descriptor
    }

    /// The resident KiB of the mapping that starts at `address`, from /proc/self/smaps.
    private func residentKiB(of address: UnsafeMutableRawPointer) throws -> Int {
        let smaps = try XCTUnwrap(ProcessPages.readWholeFile("/proc/self/smaps"))
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
