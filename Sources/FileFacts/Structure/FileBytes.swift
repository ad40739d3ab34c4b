import Glibc

/// Reads parts of an open file with `pread`, so that checking a file's
/// structure costs the bytes of its headers and tables (and, where those
/// are many and small, the blocks that hold them), never a decode, and
/// leaves the descriptor's offset alone.
struct FileBytes {
    let descriptor: Int32
    /// The file's size when the check began (or the window's).
    let size: Int
    /// Where offset 0 is in the file: a window onto part of it (a RAW's
    /// embedded preview), 0 for the whole file.
    private var base = 0

    init(descriptor: Int32) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw VipsError(.load, String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        self.size = Int(info.st_size)
    }

    /// Where this window's offset 0 is in the whole file.
    var origin: Int { base }

    /// The `length` bytes at `offset` of the file, as a file of their own;
    /// nil when they are not all in it.
    func window(_ offset: Int, _ length: Int) -> FileBytes? {
        guard contains(offset, length) else { return nil }
        var window = FileBytes(descriptor: descriptor, size: length)
        window.base = base + offset
        return window
    }

    private init(descriptor: Int32, size: Int) {
        self.descriptor = descriptor
        self.size = size
    }

    /// Bytes from `offset` to its end, or nil when they are not all in the
    /// file (the caller says what that means).
    func read(_ offset: Int, _ count: Int) throws -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(base + offset + done)) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { throw VipsError(.load, String(cString: strerror(errno))) }
            if got == 0 { return nil }  // the file shrank since fstat
            done += got
        }
        return bytes
    }

    /// Whether `count` bytes at `offset` lie within the file (no overflow).
    func contains(_ offset: Int, _ count: Int) -> Bool {
        offset >= 0 && count >= 0 && offset <= size && count <= size - offset
    }
}

/// Integers in a byte array, either byte order.
extension Array where Element == UInt8 {
    func be16(_ at: Int) -> Int { Int(self[at]) << 8 | Int(self[at + 1]) }
    func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
    func be64(_ at: Int) -> UInt64 { UInt64(be32(at)) << 32 | UInt64(be32(at + 4)) }
    func le16(_ at: Int) -> Int { Int(self[at]) | Int(self[at + 1]) << 8 }
    func le24(_ at: Int) -> Int { le16(at) | Int(self[at + 2]) << 16 }
    func le32(_ at: Int) -> Int { le16(at) | le16(at + 2) << 16 }
    func le64(_ at: Int) -> UInt64 { UInt64(le32(at)) | UInt64(le32(at + 4)) << 32 }
    func fourCC(_ at: Int) -> String {
        String(decoding: self[at..<at + 4].map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}

/// A forward-only reader that fetches the file in blocks, for formats whose
/// structure is a long run of small length-prefixed pieces (GIF sub-blocks,
/// PNG chunks): one `pread` per block, not one per piece.
struct BlockCursor {
    let file: FileBytes
    private(set) var offset: Int
    private var block: [UInt8] = []
    private var blockStart = 0
    private static let blockSize = 64 << 10

    init(_ file: FileBytes, at offset: Int) {
        self.file = file
        self.offset = offset
    }

    var remaining: Int { file.size - offset }

    /// The next byte, or nil at the end of the file.
    mutating func byte() throws -> UInt8? {
        if offset >= file.size { return nil }
        if offset < blockStart || offset >= blockStart + block.count {
            blockStart = offset
            block = try file.read(offset, Swift.min(Self.blockSize, file.size - offset)) ?? []
            if block.isEmpty { return nil }
        }
        defer { offset += 1 }
        return block[offset - blockStart]
    }

    /// The next `count` bytes, or nil when the file ends first.
    mutating func bytes(_ count: Int) throws -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            guard let next = try byte() else { return nil }
            out.append(next)
        }
        return out
    }

    mutating func skip(_ count: Int) { offset += count }
}
