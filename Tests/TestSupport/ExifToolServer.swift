import Foundation
import Glibc
import Locking

/// ExifTool kept running for the whole test process, as its own
/// `-stay_open` mode is meant for scripts that write many files: each
/// command is a list of arguments exactly as on its command line,
/// carried out by the same `exiftool` program the command line runs, but
/// Perl and ExifTool's modules start once a process rather than once a
/// file (a start costs about 0.25 s of CPU, and the tests wrote over two
/// hundred files' tags).
///
/// Each command's arguments are one to a line of its argument file
/// (standard input), then `-echo3`/`-echo4` markers, which ExifTool prints
/// to standard output and standard error after the command: what it said
/// between is that command's. A command fails when it said `Error`, or
/// that nothing was done or updated (what makes the command line exit
/// non-zero). ExifTool is started from a thread of its own that lives as
/// long as the process, under `setpriv --pdeathsig KILL`, so it ends with
/// the process however that ends; a normal exit also tells it to stop.
public final class ExifToolServer: @unchecked Sendable {
    public static let shared = ExifToolServer()

    private let lock = NSLock()
    private var process: Process?
    private var input: FileHandle?
    private var output: LineReader?
    private var errors: LineReader?

    /// Runs one command (`arguments` as given to `exiftool`, files named
    /// by absolute paths: ExifTool cannot change folder between commands).
    /// Throws with what ExifTool said when it failed.
    public func run(_ arguments: [String]) throws {
        guard !arguments.contains(where: { $0.contains("\n") }) else {
            // One argument a line: a value with a line break goes to a process of its own.
            return try TestMedia.runProcess("exiftool", arguments)
        }
        lock.lock()
        defer { lock.unlock() }
        try start()
        let marker = "{done \(UInt64.random(in: 0...UInt64.max))}"
        let command = (arguments + ["-echo3", marker, "-echo4", marker, "-execute"]).joined(separator: "\n") + "\n"
        try input?.write(contentsOf: Data(command.utf8))
        // Standard error is read while standard output is: a command that
        // filled one pipe while the other was waited on would never end.
        // (A thread of its own: a test may have every worker of Dispatch's
        // pool busy.)
        let said = Locked<Result<[String], Error>>(.success([])), errorsRead = DispatchSemaphore(value: 0)
        let errors = self.errors
        Thread {
            let result = Result { try self.read(errors, until: marker) }
            said.withLock { $0 = result }
            errorsRead.signal()
        }.start()
        let printed = Result { try read(output, until: marker) }
        errorsRead.wait()
        let lines = try printed.get() + said.withLock { $0 }.get()
        let failed = lines.contains { $0.hasPrefix("Error") || $0 == "Nothing to do." || $0.contains("weren't updated") }
        if failed {
            throw TestFailure("exiftool \(arguments.joined(separator: " ")) failed: " + lines.joined(separator: "\n"))
        }
    }

    private func read(_ reader: LineReader?, until marker: String) throws -> [String] {
        guard let reader else { throw TestFailure("exiftool is not running") }
        var lines: [String] = []
        while true {
            guard let line = reader.next() else {
                throw TestFailure("exiftool ended: " + lines.joined(separator: "\n"))
            }
            if line == marker { return lines }
            lines.append(line)
        }
    }

    private func start() throws {
        if let process, process.isRunning { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["setpriv", "--pdeathsig", "KILL", "exiftool", "-stay_open", "True", "-@", "-"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        // Started by a thread that never ends: the death signal is sent
        // when the thread that started the child ends.
        let failure = Locked<Error?>(nil), started = DispatchSemaphore(value: 0)
        let owner = Thread {
            do { try process.run() } catch { failure.withLock { $0 = error } }
            started.signal()
            while true { sleep(UInt32.max) }
        }
        owner.start()
        started.wait()
        if let failure = failure.withLock({ $0 }) { throw failure }
        if self.process == nil {
            atexit {
                // Told to stop when the process exits normally (whichever ExifTool is running then).
                try? ExifToolServer.shared.input?.write(contentsOf: Data("-stay_open\nFalse\n".utf8))
            }
        }
        self.process = process
        self.input = input.fileHandleForWriting
        self.output = LineReader(output.fileHandleForReading)
        self.errors = LineReader(errors.fileHandleForReading)
    }
}

/// Lines read from a pipe as they come, by one thread at a time (the
/// server's lock is held while a command's two pipes are read).
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer += chunk
        }
    }
}
