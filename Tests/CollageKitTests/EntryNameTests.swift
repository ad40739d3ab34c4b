import Glibc
import XCTest
@testable import CollageKit

/// A directory entry's name is read within the kernel's record, which
/// holds only as many name bytes as the name has: an entry laid at the
/// very end of a mapping (as the last of readdir's buffer can be, which
/// crashed `collage --plan` over 20,000 photos) is read whole and nothing
/// past it, shown with a page that cannot be read right after the record.
final class EntryNameTests: XCTestCase {
    func testAnEntryEndingAMappingIsReadWithinItsRecord() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped = try XCTUnwrap(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        XCTAssertNotEqual(mapped, MAP_FAILED)
        defer { munmap(mapped, 2 * page) }
        XCTAssertEqual(mprotect(mapped + page, page, PROT_NONE), 0, "the guard page")

        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        for name in ["a", "IMG_0001.jpg", "é"] {
            let bytes = Array(name.utf8) + [0]
            // The record as the kernel lays it: the header, the name and its NUL, padded to 8.
            let length = (offset + bytes.count + 7) / 8 * 8
            let record = mapped + page - length
            memset(record, 0x41, length)
            record.storeBytes(of: UInt16(length), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!,
                              as: UInt16.self)
            for (index, byte) in bytes.enumerated() { record.storeBytes(of: byte, toByteOffset: offset + index, as: UInt8.self) }
            XCTAssertEqual(entryName(record.assumingMemoryBound(to: dirent.self)), Array(name.utf8))
        }
    }

    /// Real entries, from a real folder, as the walk reads them.
    func testNamesFromReaddir() throws {
        let folder = try TemporaryDirectory()
        let names = ["a.jpg", "long name with spaces and more than thirty-two bytes.png", "x"]
        for name in names { try writeFile([], to: folder(name)) }
        let directory = try XCTUnwrap(opendir(folder.path))
        defer { closedir(directory) }
        var seen: [String] = []
        while let entry = readdir(directory) {
            let name = String(decoding: entryName(entry), as: UTF8.self)
            if name != "." && name != ".." { seen.append(name) }
        }
        XCTAssertEqual(seen.sorted(), names.sorted())
    }
}
