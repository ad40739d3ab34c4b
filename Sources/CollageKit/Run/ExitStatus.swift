/// The exit statuses of the contract (CLI.md, "Exit status").
public enum ExitStatus: Int32, Sendable {
    case success = 0
    case usage = 64
    /// Collages were written, but some inputs could not be read or decoded.
    case someInputsFailed = 65
    /// An INPUT does not exist or cannot be read, or no eligible image was found.
    case noInput = 66
    case cannotCreateOutput = 73
    case ioError = 74
    case interrupted = 130
    case terminated = 143
}

/// How a run ended: the status, and the one line that says why when it is not 0.
public struct RunOutcome: Sendable {
    public let status: ExitStatus
    public let message: String?
    public let summary: Summary
}
