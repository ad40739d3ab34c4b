import Glibc

extension OpenFile {
    /// Whether the two open files hold the same bytes: their sizes first,
    /// then their contents, read from the start in chunks; false when
    /// either cannot be read.
    func hasSameBytes(as other: OpenFile) -> Bool {
        var left = stat(), right = stat()
        guard fstat(descriptor, &left) == 0, fstat(other.descriptor, &right) == 0,
              left.st_size == right.st_size else { return false }
        let size = 1 << 16
        let a = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        let b = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { a.deallocate(); b.deallocate() }
        var offset: off_t = 0
        while true {
            let count = Self.readFully(descriptor, a, size, at: offset)
            guard count >= 0, Self.readFully(other.descriptor, b, size, at: offset) == count else { return false }
            if count == 0 { return true }
            guard memcmp(a, b, count) == 0 else { return false }
            offset += off_t(count)
        }
    }

    /// Up to `count` bytes at `offset`, fewer only at the end; -1 on an error.
    private static func readFully(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int,
                                  at offset: off_t) -> Int {
        var done = 0
        while done < count {
            let got = pread(descriptor, buffer + done, count - done, offset + off_t(done))
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return -1 }
            if got == 0 { break }
            done += got
        }
        return done
    }
}
