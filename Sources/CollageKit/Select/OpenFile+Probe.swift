import Glibc

extension OpenFile {
    /// Opens for reading without ever blocking: a FIFO, socket or device
    /// named like an image is refused, never waited on.
    static func open(_ path: PathName) -> Result<OpenFile, ProbeFailure> {
        let descriptor = path.withCString { name -> Int32 in
            guard let name else { errno = EINVAL; return -1 }
            return Glibc.open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        }
        guard descriptor >= 0 else {
            let code = errno
            // A socket, or a device no driver answers, cannot be opened at
            // all (ENXIO, ENODEV): like any other special file it is not an
            // image, and nothing failed.
            var info = stat()
            if code != ENOENT, path.withCString({ $0.map { stat($0, &info) } ?? -1 }) == 0,
               (info.st_mode & S_IFMT) != S_IFREG, (info.st_mode & S_IFMT) != S_IFDIR {
                return .failure(.rejected(.unsupported, "not a regular file"))
            }
            return .failure(.failed(code == ENOENT ? "vanished: " + systemError(code) : systemError(code)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            return .failure(.failed(systemError(code)))
        }
        let file = OpenFile(descriptor: descriptor, stamp: FileStamp(info))
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            let kind = (info.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
            return .failure(.rejected(.unsupported, kind))
        }
        return .success(file)
    }
}
