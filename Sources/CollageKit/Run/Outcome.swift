/// The exit statuses of the command line's contract.
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

    public init(status: ExitStatus, message: String?, summary: Summary) {
        self.status = status
        self.message = message
        self.summary = summary
    }

    /// A run that ended before reading any image.
    static func early(_ status: ExitStatus, _ message: String) -> RunOutcome {
        RunOutcome(status: status, message: message, summary: Summary())
    }

    /// The outcome of a run that went through its pipeline: a stop or a
    /// failure says it; otherwise the counts do.
    init(tally: Tally, interruption: ExitStatus?, failure: RunMachine.Failure?) {
        let summary = tally.summary
        self.summary = summary
        if let interruption {
            status = interruption
            message = "interrupted: no partial output left"
                + (summary.written > 0 ? " (\(summary.written) collage(s) written before)" : "")
        } else if let failure {
            (status, message) = (failure.status, failure.message)
        } else if summary.written == 0 && summary.planned == 0 && summary.unchanged == 0
                    && !(tally.sharded && tally.accepted > 0) {
            var counts: [String] = []
            if summary.rejected > 0 { counts.append("\(summary.rejected) rejected") }
            if summary.failed > 0 { counts.append("\(summary.failed) failed") }
            let detail = counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"
            let videos = summary.passedOver[.video]
            let hint = summary.portraits > 0 ? "; --allow-portrait keeps portrait photos"
                : videos > 0 ? "; \(videos) video file(s) passed over: --video considers them" : ""
            status = .noInput
            message = tally.droppedForEven > 0 ? "nothing to write: --require-even left out the only eligible image"
                                               : "no eligible image found\(detail)\(hint)"
        } else if summary.failed > 0 {
            status = .someInputsFailed
            message = "\(summary.failed) input(s) could not be read or decoded (each reported above)"
        } else {
            (status, message) = (.success, nil)
        }
    }
}
