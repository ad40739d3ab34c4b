import Dispatch
import Glibc
@preconcurrency import OpenCombine
import Locking
import Vips

/// Puts bytes at a path atomically: a reader sees the previous file or the
/// complete new one, never a part. The bytes go to a temporary file in the
/// target's folder, which is flushed to disk, renamed over the target, and
/// the folder flushed too. On any failure the temporary file is removed and
/// the previous file is untouched.
final class AtomicWriter: Sendable {
    private let queue: DispatchQueue
    /// Cancelled, and whether a file is being written (a temporary file may exist).
    private let state = Locked((cancelled: false, writing: false))
    private let stem: [UInt8]?

    /// `stem` names this run's temporary files (`.STEM.collage-tmp-…`); by
    /// default each file's own name.
    init(queue: DispatchQueue = DispatchQueue(label: "collage.save"), stem: PathName? = nil) {
        self.queue = queue
        self.stem = stem?.hiddenStem
    }

    /// After this, a save in progress removes its temporary file instead of
    /// renaming it into place, and new saves fail with `.cancelled`. Returns
    /// whether a save is writing its file now: if not, none ever will, and
    /// the process may end at once without leaving a temporary file.
    @discardableResult
    func cancel() -> Bool {
        state.withLock { state in
            state.cancelled = true
            return state.writing
        }
    }

    /// A Future of the path written.
    func save(_ bytes: UnsafeRawBufferPointerOwner, to path: PathName) -> Future<PathName, OutputError> {
        Future { [self] promise in
            // OpenCombine's promise predates Sendable; it is called once, here.
            nonisolated(unsafe) let promise = promise
            queue.async { [self] in
                do throws(OutputError) {
                    promise(.success(try write(bytes, to: path)))
                } catch {
                    promise(.failure(error))
                }
            }
        }
    }

    /// The temporary name used beside `path` (see `Sidecar`).
    static func temporaryPrefix(for path: PathName) -> [UInt8] {
        Sidecar.temporaryPrefix(stem: path.hiddenStem)
    }

    /// Writes synchronously (on the caller's thread).
    func write(_ owner: UnsafeRawBufferPointerOwner, to path: PathName) throws(OutputError) -> PathName {
        try writing(path) { () throws(OutputError) in
            let file = try createTemporary(for: path)
            // The errno of a failed write, or nil.
            if let writeError = owner.withUnsafeBytes({ writeAll(file.descriptor, $0) }) {
                throw discard(file, OutputError(code: .ioError, path: path,
                                                message: "cannot write the output: " + systemError(writeError)))
            }
            try commit(file)
            return path
        }
    }

    /// Runs `body`, which writes, as a save: refused once the writer is
    /// cancelled, and seen by `cancel()` as writing until it returns.
    func writing<Result>(_ path: PathName, _ body: () throws(OutputError) -> Result) throws(OutputError) -> Result {
        let started = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.writing = true
            return true
        }
        guard started else { throw OutputError(code: .cancelled, path: path, message: "interrupted") }
        defer { state.withLock { $0.writing = false } }
        return try body()
    }

    /// A new temporary file in `path`'s folder, with the permissions of the file it will replace.
    func createTemporary(for path: PathName) throws(OutputError) -> TemporaryFile {
        var suffix = [UInt8]()
        var random = UInt64.random(in: 0...UInt64.max)
        for _ in 0..<12 { suffix.append(UInt8(ascii: "a") + UInt8(random % 26)); random /= 26 }
        let temporary = path.directory.appending(Sidecar.temporaryPrefix(stem: stem ?? path.hiddenStem) + suffix)
        let descriptor = temporary.withCString { name -> Int32 in
            guard let name else { errno = EINVAL; return -1 }
            return open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else {
            let code = errno
            throw OutputError(code: code == ENOSPC || code == EIO || code == EDQUOT ? .ioError : .cannotCreate,
                              path: path, message: "cannot create the output: " + systemError(code))
        }
        // Keep the permissions of the file being replaced.
        var previous = stat()
        if path.withCString({ $0.map { stat($0, &previous) } ?? -1 }) == 0 {
            _ = fchmod(descriptor, previous.st_mode & 0o7777)
        }
        return TemporaryFile(descriptor: descriptor, temporary: temporary, path: path)
    }

    /// Flushes, closes and renames `file` over its target, then flushes the
    /// folder; on any failure (or once cancelled) the file is removed instead.
    func commit(_ file: TemporaryFile) throws(OutputError) {
        let path = file.path
        func fail(_ code: OutputError.Code, _ what: String, _ number: Int32) -> OutputError {
            OutputError(code: code, path: path, message: what + ": " + systemError(number))
        }
        guard fsync(file.descriptor) == 0 else { throw discard(file, fail(.ioError, "cannot flush the output", errno)) }
        guard close(file.descriptor) == 0 else {
            let code = errno
            file.unlink()
            throw fail(.ioError, "cannot close the output", code)
        }
        if state.withLock({ $0.cancelled }) {
            file.unlink()
            throw OutputError(code: .cancelled, path: path, message: "interrupted")
        }
        let renamed = file.temporary.withCString { from in
            path.withCString { to in
                guard let from, let to else { errno = EINVAL; return Int32(-1) }
                return rename(from, to)
            }
        }
        guard renamed == 0 else {
            let code = errno
            file.unlink()
            throw fail(code == EIO || code == ENOSPC ? .ioError : .cannotCreate, "cannot put the output in place", code)
        }
        // The rename is durable only once the folder is flushed.
        let folder = path.directory.withCString { $0.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1 }
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// Closes and removes `file`; returns `error`, to throw.
    @discardableResult
    func discard(_ file: TemporaryFile, _ error: OutputError? = nil) -> OutputError {
        close(file.descriptor)
        file.unlink()
        return error ?? OutputError(code: .cancelled, path: file.path, message: "abandoned")
    }

    /// Removes temporary files that killed runs left beside `path`. Call it
    /// while holding the output's lock, so no live run's file is touched.
    static func removeLeftovers(beside path: PathName) {
        let prefix = temporaryPrefix(for: path)
        let directory = path.directory
        guard let handle = directory.withCString({ $0.flatMap { opendir($0) } }) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = entryName(entry)
            if name.starts(with: prefix) && name.count == prefix.count + 12 {
                _ = directory.appending(name).withCString { $0.map { unlink($0) } }
            }
        }
    }
}

/// A file being written beside its target, until it is renamed over it.
struct TemporaryFile: Sendable {
    let descriptor: Int32
    let temporary: PathName
    let path: PathName

    func unlink() {
        _ = temporary.withCString { $0.map { Glibc.unlink($0) } }
    }
}

/// Bytes the writer reads: an encoder's buffer, or a Swift array.
protocol UnsafeRawBufferPointerOwner: Sendable {
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension EncodedImage: UnsafeRawBufferPointerOwner {}
extension Array: UnsafeRawBufferPointerOwner where Element == UInt8 {}
