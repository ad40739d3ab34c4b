import Glibc
import Locking

/// Writes a plan (`--plan FILE`) as the run's events go by: each line goes
/// to a temporary file beside FILE at once (64 KiB buffered), so memory
/// stays flat whatever the number of inputs; `commit` adds the trailer,
/// flushes the file to disk and renames it over FILE, and anything else
/// (a failure, an interruption) removes it. See `PlanFormat`.
final class PlanWriter: Sendable {
    private struct State {
        var descriptor: Int32 = -1
        var buffer: [UInt8] = []
        var hash = RunningFNV()
        var lines = 0
        var sheets = 0
        /// The errno of the first write that failed.
        var failed: Int32?
    }
    private let state = Locked(State())
    let path: PathName
    private let temporary: PathName

    /// Creates the temporary file; the failure that ends the run if it cannot.
    init(path: PathName, header: PlanLine) throws(OutputError) {
        self.path = path
        var suffix = [UInt8]()
        var random = UInt64.random(in: 0...UInt64.max)
        for _ in 0..<12 { suffix.append(UInt8(ascii: "a") + UInt8(random % 26)); random /= 26 }
        temporary = path.directory.appending(Sidecar.temporaryPrefix(stem: path.hiddenStem) + suffix)
        let descriptor = temporary.withCString { $0.map { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) } ?? -1 }
        guard descriptor >= 0 else {
            throw OutputError(code: .cannotCreate, path: path, message: "cannot create the plan: " + systemError(errno))
        }
        state.withLock { $0.descriptor = descriptor }
        add(header)
    }

    /// One more line.
    func add(_ line: PlanLine) {
        let bytes = line.encoded
        state.withLock { state in
            state.hash.add(bytes)
            state.lines += 1
            if line.sheet != nil { state.sheets += 1 }
            state.buffer += bytes
            if state.buffer.count >= 65_536 { Self.flush(&state) }
        }
    }

    private static func flush(_ state: inout State) {
        guard state.failed == nil, !state.buffer.isEmpty else { return }
        state.failed = state.buffer.withUnsafeBytes { writeAll(state.descriptor, $0) }
        state.buffer.removeAll(keepingCapacity: true)
    }

    /// The trailer, then the file in place; the failure if it could not be.
    func commit() -> RunFailure? {
        let (descriptor, failed) = state.withLock { state -> (Int32, Int32?) in
            var trailer = PlanLine()
            (trailer.end, trailer.sheets, trailer.fnv1a) = (state.lines, state.sheets, state.hash.hex)
            state.buffer += trailer.encoded
            Self.flush(&state)
            if state.failed == nil, fsync(state.descriptor) != 0 { state.failed = errno }
            defer { state.descriptor = -1 }
            return (state.descriptor, state.failed)
        }
        guard descriptor >= 0 else { return nil }
        let closed = close(descriptor) == 0 ? nil : errno
        if let code = failed ?? closed { return abandon("cannot write the plan: " + systemError(code)) }
        let renamed = temporary.withCString { from in
            path.withCString { to in from.flatMap { from in to.map { rename(from, $0) } } ?? -1 }
        }
        guard renamed == 0 else { return abandon("cannot put the plan in place: " + systemError(errno)) }
        let folder = path.directory.withCString { $0.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1 }
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
        return nil
    }

    /// No plan: the temporary file goes.
    func discard() {
        let descriptor = state.withLock { state in
            defer { state.descriptor = -1 }
            return state.descriptor
        }
        guard descriptor >= 0 else { return }
        close(descriptor)
        _ = temporary.withCString { $0.map { unlink($0) } }
    }

    private func abandon(_ message: String) -> RunFailure {
        _ = temporary.withCString { $0.map { unlink($0) } }
        return RunFailure(status: .ioError, message: "\(path): \(message)")
    }

    deinit { discard() }
}
