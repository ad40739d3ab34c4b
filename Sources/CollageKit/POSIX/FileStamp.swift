import Glibc

/// A file's size and modification time, to tell whether it changed.
public struct FileStamp: Equatable, Sendable, Codable {
    /// The file's size in bytes.
    public let size: Int64
    /// Its modification time, in nanoseconds since the epoch.
    public let modified: Int64

    /// A stamp of `size` bytes modified at `modified` (nanoseconds since the epoch).
    public init(size: Int64, modified: Int64) {
        self.size = size
        self.modified = modified
    }

    init(_ info: stat) {
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// The stamp of the file at `path` (links followed), or nil.
    public static func of(_ path: PathName) -> FileStamp? {
        path.withCString { name in
            guard let name else { return nil }
            var info = stat()
            return stat(name, &info) == 0 ? FileStamp(info) : nil
        }
    }
}
