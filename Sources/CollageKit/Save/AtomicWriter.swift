import Dispatch
import Glibc
@preconcurrency import OpenCombine
import Synchronization
import Vips

/// Puts bytes at a path atomically: a reader sees the previous file or the
/// complete new one, never a part. The bytes go to a temporary file in the
/// target's folder, which is flushed to disk, renamed over the target, and
/// the folder flushed too. On any failure the temporary file is removed and
/// the previous file is untouched.
public final class AtomicWriter: Sendable {
    private let queue: DispatchQueue
    /// Cancelled, and whether a file is being written (a temporary file may exist).
    private let state = Mutex((cancelled: false, writing: false))
    private let stem: [UInt8]?

    /// `stem` names this run's temporary files (`.STEM.collage-tmp-…`); by
    /// default each file's own name.
    public init(queue: DispatchQueue = DispatchQueue(label: "collage.save"), stem: PathName? = nil) {
        self.queue = queue
        self.stem = stem?.hiddenStem
    }

    /// After this, a save in progress removes its temporary file instead of
    /// renaming it into place, and new saves fail with `.cancelled`. Returns
    /// whether a save is writing its file now: if not, none ever will, and
    /// the process may end at once without leaving a temporary file.
    @discardableResult
    public func cancel() -> Bool {
        state.withLock { state in
            state.cancelled = true
            return state.writing
        }
    }

    /// A Future of the path written.
    public func save(_ bytes: UnsafeRawBufferPointerOwner, to path: PathName) -> Future<PathName, OutputError> {
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
    public static func temporaryPrefix(for path: PathName) -> [UInt8] {
        Sidecar.temporaryPrefix(stem: path.hiddenStem)
    }

    /// Writes synchronously (on the caller's thread).
    public func write(_ owner: UnsafeRawBufferPointerOwner, to path: PathName) throws(OutputError) -> PathName {
        func fail(_ code: OutputError.Code, _ what: String, _ number: Int32) -> OutputError {
            OutputError(code: code, path: path, message: what + ": " + systemError(number))
        }
        let started = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.writing = true
            return true
        }
        guard started else { throw OutputError(code: .cancelled, path: path, message: "interrupted") }
        defer { state.withLock { $0.writing = false } }
        let directory = path.directory
        var suffix = [UInt8]()
        var random = UInt64.random(in: 0...UInt64.max)
        for _ in 0..<12 { suffix.append(UInt8(ascii: "a") + UInt8(random % 26)); random /= 26 }
        let temporary = directory.appending(Sidecar.temporaryPrefix(stem: stem ?? path.hiddenStem) + suffix)

        let descriptor = temporary.withCString { name -> Int32 in
            guard let name else { errno = EINVAL; return -1 }
            return open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else {
            let code = errno
            throw fail(code == ENOSPC || code == EIO || code == EDQUOT ? .ioError : .cannotCreate,
                       "cannot create the output", code)
        }
        var closed = false
        func abandon(_ error: OutputError) -> OutputError {
            if !closed { close(descriptor) }
            _ = temporary.withCString { $0.map { unlink($0) } }
            return error
        }
        // Keep the permissions of the file being replaced.
        var previous = stat()
        if path.withCString({ $0.map { stat($0, &previous) } ?? -1 }) == 0 {
            _ = fchmod(descriptor, previous.st_mode & 0o7777)
        }
        // The errno of a failed write, or nil.
        let writeError = owner.withUnsafeBytes { writeAll(descriptor, $0) }
        if let writeError { throw abandon(fail(.ioError, "cannot write the output", writeError)) }
        guard fsync(descriptor) == 0 else { throw abandon(fail(.ioError, "cannot flush the output", errno)) }
        closed = true
        guard close(descriptor) == 0 else { throw abandon(fail(.ioError, "cannot close the output", errno)) }
        if state.withLock({ $0.cancelled }) {
            throw abandon(OutputError(code: .cancelled, path: path, message: "interrupted"))
        }
        let renamed = temporary.withCString { from in
            path.withCString { to in
                guard let from, let to else { errno = EINVAL; return Int32(-1) }
                return rename(from, to)
            }
        }
        guard renamed == 0 else {
            let code = errno
            throw abandon(fail(code == EIO || code == ENOSPC ? .ioError : .cannotCreate,
                               "cannot put the output in place", code))
        }
        // The rename is durable only once the folder is flushed.
        let folder = directory.withCString { $0.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1 }
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
        return path
    }

    /// Removes temporary files that killed runs left beside `path`. Call it
    /// while holding the output's lock, so no live run's file is touched.
    public static func removeLeftovers(beside path: PathName) {
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

/// Bytes the writer reads: an encoder's buffer, or a Swift array.
public protocol UnsafeRawBufferPointerOwner: Sendable {
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension EncodedImage: UnsafeRawBufferPointerOwner {}
extension Array: UnsafeRawBufferPointerOwner where Element == UInt8 {}
