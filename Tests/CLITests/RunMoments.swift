import Foundation
import Glibc

// Moments of a run as the kernel reports them, for tests that must act at a
// given point of a run (signal it while it writes, kill it after a sheet is
// in place, count a watcher's passes) without reading the clock: what a
// folder saw happen in it (inotify), a child stopped where it stands
// (SIGSTOP, then waitid), and what a stopped or sleeping child's threads are
// blocked in (/proc/PID/task/TID/syscall).

/// What happens in one folder, in order, as inotify reports it: each name
/// created, removed, moved in or out, and written to.
final class FolderEvents {
    enum Kind: Equatable { case created, deleted, movedIn, movedOut, modified }
    struct Event: Equatable {
        let kind: Kind
        let name: String
    }

    let descriptor: Int32
    private(set) var all: [Event] = []

    /// Starts watching `folder` (which must exist): what happens before
    /// this is not seen.
    init(_ folder: String) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw SpawnError.system("inotify_init1", errno) }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_MODIFY)
        guard inotify_add_watch(descriptor, folder, mask) >= 0 else {
            let code = errno
            close(descriptor)
            throw SpawnError.system("inotify_add_watch \(folder)", code)
        }
    }

    deinit { close(descriptor) }

    /// Takes in the events queued so far, without waiting.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            var offset = 0
            while offset + 16 <= count {
                // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
                func word(_ at: Int) -> UInt32 {
                    buffer[offset + at..<offset + at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
                }
                let mask = word(4), length = Int(word(12))
                let name = String(decoding: buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 },
                                  as: UTF8.self)
                let kinds: [(UInt32, Kind)] = [(UInt32(IN_CREATE), .created), (UInt32(IN_DELETE), .deleted),
                                               (UInt32(IN_MOVED_TO), .movedIn), (UInt32(IN_MOVED_FROM), .movedOut),
                                               (UInt32(IN_MODIFY), .modified)]
                for (bit, kind) in kinds where mask & bit != 0 { all.append(Event(kind: kind, name: name)) }
                offset += 16 + length
            }
        }
    }

    /// How many times `kind` happened to a name that `matches`.
    func count(_ kind: Kind, _ matches: (String) -> Bool) -> Int {
        all.filter { $0.kind == kind && matches($0.name) }.count
    }

    func count(_ kind: Kind, _ name: String) -> Int { count(kind) { $0 == name } }

    /// Waits for events until `condition` holds (true) or `timeout` seconds
    /// pass (false: a hang guard). For runs whose output is too small to
    /// fill a pipe, so that nobody needs to read it meanwhile.
    func await(timeout: Double = 120, _ condition: () -> Bool) -> Bool {
        let deadline = monotonicNow() + timeout
        while true {
            drain()
            if condition() { return true }
            let remaining = deadline - monotonicNow()
            if remaining <= 0 { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, Int32(min(remaining, 1.0) * 1000) + 1)
        }
    }
}

/// What `RunningProcess.freeze()` found.
enum Frozen: Equatable {
    /// Stopped by SIGSTOP: every thread stands still until `thaw()`.
    case stopped
    /// It had ended already (not reaped: `wait` still tells how).
    case ended
}

extension RunningProcess {
    /// Reads output (as `pump`) until `done()` holds, also waking when
    /// something happens in `folder` (its events are taken in before each
    /// look at `done`), or `deadline` passes. Returns `done()`.
    @discardableResult
    func pump(until deadline: Double, folder: FolderEvents, done: () -> Bool) -> Bool {
        pump(until: deadline, wakingOn: folder.descriptor) {
            folder.drain()
            return done()
        }
    }

    /// Stops the child with SIGSTOP and waits until all its threads have
    /// stopped (or it had already ended). Nothing it does is undone; `thaw`
    /// lets it go on, and a signal sent meanwhile is delivered then.
    func freeze() -> Frozen {
        kill(pid, SIGSTOP)
        while true {
            var info = siginfo_t()
            // WNOWAIT: an end stays for `wait` to collect.
            if waitid(P_PID, id_t(pid), &info, WSTOPPED | WEXITED | WNOWAIT) == 0 {
                return info.si_code == CLD_STOPPED ? .stopped : .ended
            }
            if errno != EINTR { return .ended }
        }
    }

    func thaw() { kill(pid, SIGCONT) }

    /// Reads output (unless `reading` is false) while looking at
    /// `condition` about every 10 ms (a state to look at, not an event to
    /// wait on) until it holds (true), the child ends, or `timeout` seconds
    /// pass (false: a hang guard, not a measure).
    func awaitState(timeout: Double = 60, reading: Bool = true, _ condition: () -> Bool) -> Bool {
        let deadline = monotonicNow() + timeout
        while !condition() {
            if hasExited || monotonicNow() >= deadline { return false }
            if reading { pump(until: monotonicNow() + 0.01) } else { usleep(10_000) }
        }
        return true
    }

    /// The system calls the child's threads are blocked in now: for each
    /// sleeping thread, its call's number and first arguments (a thread
    /// running its own code is left out).
    var blockedCalls: [(number: Int, arguments: [UInt64])] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8) else {
                return nil
            }
            let words = text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard let number = words.first.flatMap({ Int($0) }), number >= 0 else { return nil }
            let arguments = words.dropFirst().map { UInt64($0.dropFirst(2), radix: 16) ?? 0 }
            return (number, Array(arguments))
        }
    }

    /// Whether one of the child's threads is blocked in poll() or ppoll()
    /// on `descriptor` (its pollfd array read from /proc/PID/mem).
    func isPolling(_ descriptor: Int32) -> Bool {
        blockedCalls.contains { call in
            guard Syscall.polls.contains(call.number), call.arguments.count >= 2,
                  call.arguments[1] > 0, call.arguments[1] < 64 else { return false }
            return readMemory(at: call.arguments[0], count: Int(call.arguments[1]) * 8).map { bytes in
                stride(from: 0, to: bytes.count, by: 8).contains { offset in
                    Int32(bitPattern: bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) })
                        == descriptor
                }
            } ?? false
        }
    }

    /// Whether one of the child's threads is blocked writing to
    /// `descriptor` (for a pipe: the pipe is full and nobody reads it).
    func isBlockedWriting(_ descriptor: Int32) -> Bool {
        blockedCalls.contains { Syscall.writes.contains($0.number) && $0.arguments.first == UInt64(descriptor) }
    }

    private func readMemory(at address: UInt64, count: Int) -> [UInt8]? {
        let memory = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard memory >= 0 else { return nil }
        defer { close(memory) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(memory, $0.baseAddress, count, off_t(Int64(bitPattern: address))) }
        return read == count ? bytes : nil
    }
}

/// System call numbers of this architecture.
private enum Syscall {
    #if arch(x86_64)
    static let polls = [7, 271]  // poll, ppoll
    static let writes = [1, 20]  // write, writev
    #elseif arch(arm64)
    static let polls = [73]  // ppoll
    static let writes = [64, 66]  // write, writev
    #endif
}

extension CLITestCase {
    /// A run killed with SIGKILL at a moment it reached: starts the binary
    /// with `arguments` (its `folder` watched from before the start), reads
    /// its output until `moment` holds, stops it there (SIGSTOP), lets
    /// `atStop` look at what it left (the run standing still), and kills
    /// it. Returns how it ended and the folder's events; `reached` is false
    /// when it ended before the moment came.
    func killed(_ arguments: [String], watching folder: String,
                at moment: (RunningProcess, FolderEvents) -> Bool,
                atStop: (FolderEvents) -> Void = { _ in }) throws -> (result: ProcessResult, folder: FolderEvents, reached: Bool) {
        let events = try FolderEvents(path(folder))
        let process = try start(arguments)
        let reached = process.pump(until: monotonicNow() + 120, folder: events) { moment(process, events) }
        if reached, process.freeze() == .stopped {
            events.drain()
            atStop(events)
        }
        process.send(SIGKILL)
        process.thaw()
        return (process.wait(timeout: 120), events, reached)
    }
}
