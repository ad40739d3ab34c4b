import Glibc

/// A small file read whole: a state kept beside an output, a list of
/// patterns. `limit` bounds what it may hold.
enum FileContents {
    /// Why a file could not be read: the errno, and its words.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let code: Int32
        /// Said instead of the errno's words.
        var text: String? = nil
        var description: String { text ?? systemError(code) }
    }

    /// The bytes of the file at `path`, at most `limit` of them (EFBIG past
    /// that). `followLinks: false` refuses a symbolic link (ELOOP).
    /// `regularOnly` refuses anything but a regular file (a FIFO, a device,
    /// a folder) without waiting on it.
    static func read(_ path: PathName, limit: Int, followLinks: Bool = true,
                     regularOnly: Bool = false) -> Result<[UInt8], Failure> {
        let flags = O_RDONLY | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW) | (regularOnly ? O_NONBLOCK | O_NOCTTY : 0)
        let descriptor = path.withCString { $0.map { open($0, flags) } ?? -1 }
        guard descriptor >= 0 else { return .failure(Failure(code: errno)) }
        defer { close(descriptor) }
        if regularOnly {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return .failure(Failure(code: errno)) }
            guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(Failure(code: EINVAL, text: "not a regular file")) }
            if info.st_size > limit { return .failure(Failure(code: EFBIG)) }
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failure(Failure(code: errno)) }
            if count == 0 { return .success(bytes) }
            bytes += chunk[..<count]
            if bytes.count > limit { return .failure(Failure(code: EFBIG)) }
        }
    }
}
