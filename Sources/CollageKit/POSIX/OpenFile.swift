import Glibc

/// An open regular file, closed when its owner lets go.
final class OpenFile: Sendable {
    let descriptor: Int32
    init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { close(descriptor) }

    /// fstat of the open file.
    func status() -> stat {
        var info = stat()
        _ = fstat(descriptor, &info)
        return info
    }
}

/// Writes all of `bytes` to `descriptor`, again after EINTR: the one write
/// loop of the outputs and of standard output. Returns the errno of a
/// failed write, or nil.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if count < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += count
    }
    return nil
}
