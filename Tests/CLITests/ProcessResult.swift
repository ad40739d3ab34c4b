import Glibc

/// How a child process ended, and everything it wrote.
struct ProcessResult {
    /// The exit status, when the process exited normally.
    var status: Int32?
    /// The signal that killed it, when it did not exit normally.
    var signal: Int32?
    var stdout: [UInt8]
    var stderr: [UInt8]
    /// The process was still running at its deadline and was killed.
    var timedOut: Bool
    /// Seconds from spawn to exit.
    var elapsed: Double

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }

    /// Standard error split into lines (the last newline does not start an empty line).
    var stderrLines: [String] { Self.lines(stderr) }
    var stdoutLines: [String] { Self.lines(stdout) }

    static func lines(_ bytes: [UInt8]) -> [String] {
        var parts = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true { parts.removeLast() }
        return parts.map { String(decoding: $0, as: UTF8.self) }
    }

    /// One line for assertion messages.
    var summary: String {
        let how = timedOut ? "timed out" : status.map { "exit \($0)" } ?? "signal \(signal ?? -1)"
        return "\(how) after \(String(format1: elapsed)) s\n--- stdout:\n\(stdoutText)--- stderr:\n\(stderrText)---"
    }
}

extension String {
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}

enum SpawnError: Error, CustomStringConvertible {
    case system(String, Int32)
    var description: String {
        switch self {
        case .system(let what, let code): return "\(what): \(String(cString: strerror(code)))"
        }
    }
}

/// Seconds on the monotonic clock.
func monotonicNow() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
