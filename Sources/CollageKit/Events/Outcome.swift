/// The exit statuses of the command line's contract.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Every collage was written and no input failed (`--diff`: nothing differs).
    case success = 0
    /// `--diff`: some image differs from its baseline, is new or is gone.
    case differs = 1
    /// A usage error: a bad option or value, an unknown output extension, no INPUT.
    case usage = 64
    /// Collages were written, but some inputs could not be read or decoded.
    case someInputsFailed = 65
    /// An INPUT does not exist or cannot be read, or no eligible image was found.
    case noInput = 66
    /// An output could not be created (folder missing, not writable, name too long).
    case cannotCreateOutput = 73
    /// An I/O error while writing an output (disk full, ...).
    case ioError = 74
    /// Interrupted by SIGINT; no partial output left.
    case interrupted = 130
    /// Terminated by SIGTERM; no partial output left.
    case terminated = 143
}

/// How a run ended: the status, and the one line that says why when it is not 0.
public struct RunOutcome: Sendable, Equatable {
    /// The status the command line exits with.
    public let status: ExitStatus
    /// The line the command line prints on standard error; nil when the status is 0.
    public let message: String?
    /// The run's counts, as the last `summary` event reports them.
    public let summary: Summary

    /// An outcome of `status`, said by `message`, with the run's counts.
    public init(status: ExitStatus, message: String?, summary: Summary) {
        self.status = status
        self.message = message
        self.summary = summary
    }

    /// A run that ended before reading any image.
    static func early(_ status: ExitStatus, _ message: String) -> RunOutcome {
        RunOutcome(status: status, message: message, summary: Summary())
    }
}

/// Something that ends a run on its own: an output that could not be made
/// or written (73, 74), or a usage error found late (64).
public struct RunFailure: Error, Equatable, Sendable {
    /// The status the run ends with.
    public let status: ExitStatus
    /// The one line that says what went wrong.
    public let message: String

    /// A failure that ends the run with `status`, said by `message`.
    public init(status: ExitStatus, message: String) {
        self.status = status
        self.message = message
    }
}

/// What happened in a run or a job, as the outcome rules read it. Every
/// kind of run gathers these and asks `OutcomeRules` for its status.
struct OutcomeFacts: Equatable, Sendable {
    /// What the job is made of, for the words of its messages.
    enum Scope: Equatable, Sendable {
        /// One run over the inputs (one collage, sheets, a shard).
        case images
        /// One run per folder.
        case folders
        /// Passes until a signal.
        case watch
    }

    var scope = Scope.images
    /// SIGINT or SIGTERM.
    var interruption: ExitStatus?
    /// The line a stop ends with, when a run said more than the rules would
    /// ("interrupted while waiting for another run").
    var interruptionLine: String?
    var failure: RunFailure?
    var summary = Summary()
    /// Nothing was made, checked or planned, with the line that says why.
    var nothingToDo: String?
    /// Nothing was made because no image was eligible: the line says why,
    /// from the summary's counts (a job of groups, whose header pass is its own).
    var nothingEligible = false
    /// `--fail-on-flag`: a flag is a failure.
    var failOnFlag = false
    /// `--diff` under `--skip-unchanged`: the sheets left as they are show differences.
    var differs = false
    /// `--approve`: every pair asked for became the baseline; what differed is settled.
    var approved = false
}

/// Which status wins when several things happened, in one place:
///
///     signal > unwritable output or write error > nothing to do
///            > failed inputs > differences (--diff) > flags under --fail-on-flag > success
enum OutcomeRules {
    static func decide(_ facts: OutcomeFacts) -> RunOutcome {
        let summary = facts.summary
        func outcome(_ status: ExitStatus, _ message: String?) -> RunOutcome {
            RunOutcome(status: status, message: message, summary: summary)
        }
        if let interruption = facts.interruption {
            if let line = facts.interruptionLine { return outcome(interruption, line) }
            if facts.scope == .watch {
                return outcome(interruption, "stopped watching (\(summary.written) collage(s) written)")
            }
            let before = facts.scope == .images && summary.written > 0
                ? " (\(summary.written) collage(s) written before)" : ""
            return outcome(interruption, "interrupted: no partial output left" + before)
        }
        if let failure = facts.failure { return outcome(failure.status, failure.message) }
        if let nothing = facts.nothingToDo { return outcome(.noInput, nothing) }
        if facts.nothingEligible { return outcome(.noInput, nothingEligible(summary)) }
        if summary.failed > 0 {
            let what = facts.scope == .folders ? "input(s) or folder(s) could not be used"
                                               : "input(s) could not be read or decoded"
            return outcome(.someInputsFailed, "\(summary.failed) \(what) (each reported above)")
        }
        if facts.differs && !summary.compared.differ {
            return outcome(.differs, "the images differ from the baseline as when the sheets left unchanged were made")
        }
        if summary.compared.differ && !facts.approved {
            let counts = summary.compared
            return outcome(.differs, "\(counts.failing) of \(counts.total) image(s) differ from the baseline (\(counts.words))")
        }
        if facts.failOnFlag, summary.flagged > 0 {
            return outcome(.someInputsFailed,
                           "\(summary.flagged) image(s) flagged (each reported above); --fail-on-flag makes that a failure")
        }
        return outcome(.success, nil)
    }

    /// Why one run over the inputs had nothing to do, or nil when it did
    /// something: wrote, planned or found unchanged a collage, or (a shard
    /// of `--sheets`) accepted images whose sheets are all other shards'.
    static func nothingToDo(_ tally: Tally) -> String? {
        let summary = tally.summary
        guard summary.written == 0 && summary.planned == 0 && summary.unchanged == 0 && summary.compared.total == 0
              && !(tally.sharded && tally.accepted > 0) && !tally.planned else { return nil }
        if tally.droppedForEven > 0 { return "nothing to write: --require-even left out the only eligible image" }
        return nothingEligible(summary)
    }

    /// "no eligible image found", with what was rejected or failed and a hint.
    static func nothingEligible(_ summary: Summary) -> String {
        var counts: [String] = []
        if summary.rejected > 0 { counts.append("\(summary.rejected) rejected") }
        if summary.failed > 0 { counts.append("\(summary.failed) failed") }
        let detail = counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"
        let videos = summary.passedOver[.video]
        let hint = summary.portraits > 0 ? "; --allow-portrait keeps portrait photos"
            : videos > 0 ? "; \(videos) video file(s) passed over: --video considers them" : ""
        return "no eligible image found\(detail)\(hint)"
    }
}
