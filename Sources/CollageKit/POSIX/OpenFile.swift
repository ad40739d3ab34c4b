import Glibc

/// An open regular file, closed when its owner lets go.
final class OpenFile: Sendable {
    let descriptor: Int32
    /// Its size and modification time when it was opened (the `fstat` that
    /// checked it), if that was taken.
    private let openedStamp: FileStamp?
    init(descriptor: Int32, stamp: FileStamp? = nil) { (self.descriptor, openedStamp) = (descriptor, stamp) }
    deinit { close(descriptor) }

    /// Its stamp as it was opened: the bytes read are those of this file,
    /// so `--skip-unchanged` records it without another `stat`.
    var stamp: FileStamp { openedStamp ?? FileStamp(status()) }

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
