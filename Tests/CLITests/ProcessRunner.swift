import Glibc

/// A child started with posix_spawn: arguments are bytes (not Strings, so
/// names that are not UTF-8 pass unchanged), standard input comes from the
/// given bytes (or /dev/null), standard output and error are captured as
/// bytes through pipes.
final class RunningProcess {
    let pid: pid_t
    let started: Double
    private var outDescriptor: Int32
    private var errDescriptor: Int32
    private(set) var stdout: [UInt8] = []
    private(set) var stderr: [UInt8] = []
    private var finished: ProcessResult?

    /// - Parameters:
    ///   - arguments: argv, the first being the program (a path, or a name looked up in PATH).
    ///   - stdin: bytes the child reads on standard input; nil for /dev/null.
    ///   - directory: the child's working directory.
    ///   - environment: extra variables, added to (or replacing those of) this process's.
    init(arguments: [[UInt8]], stdin: [UInt8]? = nil, directory: String? = nil,
         environment: [String: String] = [:]) throws {
        precondition(!arguments.isEmpty)
        // Standard input: an unlinked temporary file holding the bytes, so
        // that any amount can be given without a writer thread.
        var inputDescriptor: Int32
        if let stdin {
            var template = Array("/tmp/collage-cli-stdin-XXXXXX".utf8CString)
            inputDescriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard inputDescriptor >= 0 else { throw SpawnError.system("mkstemp", errno) }
            _ = fcntl(inputDescriptor, F_SETFD, FD_CLOEXEC)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            var offset = 0
            while offset < stdin.count {
                let count = stdin.withUnsafeBytes { write(inputDescriptor, $0.baseAddress! + offset, stdin.count - offset) }
                guard count > 0 else { close(inputDescriptor); throw SpawnError.system("write stdin", errno) }
                offset += count
            }
            lseek(inputDescriptor, 0, SEEK_SET)
        } else {
            inputDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard inputDescriptor >= 0 else { throw SpawnError.system("open /dev/null", errno) }
        }
        defer { close(inputDescriptor) }

        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw SpawnError.system("pipe", errno) }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            throw SpawnError.system("pipe", errno)
        }
        for descriptor in outPipe + errPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputDescriptor, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        if let directory {
            guard let addChdir = Self.addChdir else { throw SpawnError.system("posix_spawn_file_actions_addchdir_np", ENOSYS) }
            let status = addChdir(&actions, directory)
            guard status == 0 else { throw SpawnError.system("addchdir", status) }
        }

        // The child starts with no blocked signals and default dispositions,
        // in its own process group (so a timeout can kill what it started).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        // argv and envp as C strings made from bytes.
        func cStrings(_ list: [[UInt8]]) -> [UnsafeMutablePointer<CChar>?] {
            list.map { bytes in
                let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
                pointer[bytes.count] = 0
                return pointer
            } + [nil]
        }
        var merged: [String: [UInt8]] = [:]
        var order: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let bytes = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let key = String(decoding: bytes[..<equals], as: UTF8.self)
                if merged[key] == nil { order.append(key) }
                merged[key] = bytes
            }
            entry += 1
        }
        for (key, value) in environment {
            if merged[key] == nil { order.append(key) }
            merged[key] = Array("\(key)=\(value)".utf8)
        }
        let argv = cStrings(arguments)
        let envp = cStrings(order.map { merged[$0]! })
        defer {
            argv.forEach { $0?.deallocate() }
            envp.forEach { $0?.deallocate() }
        }

        var child: pid_t = 0
        let program = argv[0]!
        let status = arguments[0].contains(UInt8(ascii: "/"))
            ? posix_spawn(&child, program, &actions, &attributes, argv, envp)
            : posix_spawnp(&child, program, &actions, &attributes, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard status == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw SpawnError.system("posix_spawn \(String(decoding: arguments[0], as: UTF8.self))", status)
        }
        pid = child
        started = monotonicNow()
        outDescriptor = outPipe[0]
        errDescriptor = errPipe[0]
    }

    /// glibc's posix_spawn_file_actions_addchdir_np (2.29+), which the Glibc
    /// module does not import: looked up at run time.
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>,
                                                 UnsafePointer<CChar>) -> Int32
    private static let addChdir: AddChdir? = {
        guard let handle = dlopen(nil, RTLD_NOW),
              let symbol = dlsym(handle, "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    deinit {
        if finished == nil {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if outDescriptor >= 0 { close(outDescriptor) }
        if errDescriptor >= 0 { close(errDescriptor) }
    }

    /// Reads what the child writes until `done()` holds, both pipes are
    /// closed, or `deadline` (monotonic seconds) passes. Returns `done()`.
    /// `wakingOn`: another descriptor whose being readable also ends a wait
    /// (for `done` to look again; `done` must read it).
    @discardableResult
    func pump(until deadline: Double, wakingOn extra: Int32 = -1, done: () -> Bool = { false }) -> Bool {
        while !done() {
            let remaining = deadline - monotonicNow()
            if remaining <= 0 || !readPipes(waitingUpTo: min(remaining, 1.0), wakingOn: extra) { break }
        }
        return done()
    }

    /// Reads what the child has written so far, without waiting.
    func readAvailable() {
        while readPipes(waitingUpTo: 0, wakingOn: -1, onlyIfReady: true) {}
    }

    /// One poll of the pipes (and `extra`), reading what is ready. False
    /// when both pipes are closed (or, `onlyIfReady`, when nothing was read).
    private func readPipes(waitingUpTo seconds: Double, wakingOn extra: Int32, onlyIfReady: Bool = false) -> Bool {
        var fds: [pollfd] = []
        if outDescriptor >= 0 { fds.append(pollfd(fd: outDescriptor, events: Int16(POLLIN), revents: 0)) }
        if errDescriptor >= 0 { fds.append(pollfd(fd: errDescriptor, events: Int16(POLLIN), revents: 0)) }
        if fds.isEmpty { return false }
        if extra >= 0 { fds.append(pollfd(fd: extra, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&fds, nfds_t(fds.count), seconds > 0 ? Int32(seconds * 1000) + 1 : 0)
        if ready < 0 { return errno == EINTR }
        var read = false
        for fd in fds where fd.revents != 0 && fd.fd != extra {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                read = true
                if fd.fd == outDescriptor { stdout += chunk[..<count] } else { stderr += chunk[..<count] }
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                close(fd.fd)
                if fd.fd == outDescriptor { outDescriptor = -1 } else { errDescriptor = -1 }
            }
        }
        return onlyIfReady ? read : true
    }

    /// Whether a whole line has arrived on standard output.
    var hasStdoutLine: Bool { stdout.contains(UInt8(ascii: "\n")) }

    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Reads everything until the child exits (or `timeout` seconds from
    /// its start pass: then it is killed) and says how it ended.
    func wait(timeout: Double) -> ProcessResult {
        if let finished { return finished }
        let deadline = started + timeout
        pump(until: deadline)
        var raw: Int32 = 0
        var timedOut = false
        var ended = 0.0
        while true {
            let result = waitpid(pid, &raw, WNOHANG)
            if result == pid { ended = monotonicNow(); break }
            if result < 0 && errno != EINTR { ended = monotonicNow(); break }
            if monotonicNow() >= deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                waitpid(pid, &raw, 0)
                ended = monotonicNow()
                break
            }
            usleep(2000)
        }
        // Whatever is still buffered in the pipes.
        pump(until: monotonicNow() + 1)
        let termination = raw & 0x7f
        let result = ProcessResult(
            status: termination == 0 ? (raw >> 8) & 0xff : nil,
            signal: termination != 0 && termination != 0x7f ? termination : nil,
            stdout: stdout, stderr: stderr, timedOut: timedOut, elapsed: ended - started)
        finished = result
        return result
    }
}

/// Runs a command to the end.
func runProcess(_ arguments: [[UInt8]], stdin: [UInt8]? = nil, directory: String? = nil,
                environment: [String: String] = [:], timeout: Double = 120) throws -> ProcessResult {
    let process = try RunningProcess(arguments: arguments, stdin: stdin, directory: directory,
                                     environment: environment)
    return process.wait(timeout: timeout)
}
