/// The life of a job as a pure state machine. A job is a series of passes,
/// each one `CollageRun` (itself driven by `RunMachine`): one pass over the
/// inputs, a pass per folder (`--per-folder`), or a pass per tick of
/// `--watch`; once they are over, its finishing (`--html`'s page). The shell
/// (`JobRun`) finds the passes, runs them and tells the machine how each
/// ended; the machine says what comes next and gathers the facts the
/// outcome rules decide on.
///
///     idle ─start─► seeking ─found─► running ─passEnded─► seeking …
///                      │ none                 (fatal, signal) │
///                      ▼                                      ▼
///                  finishing ─finished─────────────────────► ended
struct JobMachine: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// One pass over the inputs.
        case single
        /// A pass per folder; a folder with nothing eligible is noted and passed.
        case folders
        /// A pass per group of photos (`--group-by`); a group whose images
        /// all changed since the header pass is passed.
        case groups
        /// Passes until a signal; only a failure to write ends it otherwise.
        case watch
    }

    enum State: Equatable, Sendable {
        case idle
        /// Looking for the next pass: the next folder, the next tick.
        case seeking
        case running
        /// Writing what comes after the passes (the page).
        case finishing
        case ended
    }

    enum Input: Equatable, Sendable {
        /// `problem`: a check before any pass failed (the page's folder).
        case start(problem: RunFailure?)
        /// A next pass was found, or none is left. `othersSkipped`: folders
        /// passed over on the way because they are other shards'.
        case found(Bool, othersSkipped: Int)
        case passEnded(RunOutcome)
        /// SIGINT or SIGTERM.
        case interrupted(ExitStatus)
        /// The finishing is done; `failure` if the page could not be written.
        case finished(RunFailure?)
    }

    enum Action: Equatable, Sendable {
        /// Find the next pass (blocks for `--watch` until a tick or a stop).
        case seek
        /// Run the pass just found to its end.
        case runPass
        /// Stop the pass that is running.
        case interruptPass(ExitStatus)
        /// Stop looking for a pass (wakes a watch waiting for its tick).
        case stopSeeking
        /// Tell that the folder just passed held images but none eligible.
        case noteNothingEligible
        /// Write what comes after the passes.
        case finish
        /// The job is over: the outcome rules decide on these facts, with
        /// the summary of everything the job reported.
        case end(OutcomeFacts)
    }

    let kind: Kind
    /// Whether the job has something to do after its passes (`--html`).
    let finishes: Bool
    let failOnFlag: Bool
    private(set) var state = State.idle
    private(set) var interruption: ExitStatus?
    private(set) var failure: RunFailure?
    /// Passes that made (or found unchanged) their collages, and folders of other shards.
    private(set) var done = 0
    /// The one pass's own reason when it had nothing to do, or its line when stopped.
    private(set) var nothing: String?
    private(set) var stopLine: String?
    /// A pass ended with `--diff`'s status 1.
    private(set) var differs = false
    /// A pass ended with `--approve`'s differences settled.
    private(set) var approved = false

    init(kind: Kind, finishes: Bool = false, failOnFlag: Bool = false) {
        self.kind = kind
        self.finishes = finishes
        self.failOnFlag = failOnFlag
    }

    mutating func handle(_ input: Input) -> [Action] {
        switch (state, input) {
        case (.ended, _):
            return []
        case (_, .interrupted(let status)):
            guard interruption == nil else { return [] }
            interruption = status
            switch state {
            case .running: return [.interruptPass(status)]
            case .seeking: return [.stopSeeking]
            default: return []  // the start ends at once; a page being written is finished
            }
        case (.idle, .start(let problem)):
            if let problem { failure = problem }
            if interruption != nil || failure != nil { return end() }
            state = .seeking
            return [.seek]
        case (.seeking, .found(let found, let others)):
            done += others
            if interruption != nil { return end() }
            guard found else { return finishOrEnd() }
            state = .running
            return [.runPass]
        case (.running, .passEnded(let outcome)):
            return passEnded(outcome)
        case (.finishing, .finished(let problem)):
            failure = failure ?? problem
            return end()
        default:
            return []
        }
    }

    private mutating func passEnded(_ outcome: RunOutcome) -> [Action] {
        state = .seeking
        switch outcome.status {
        case .success, .someInputsFailed, .differs:
            done += 1
            if outcome.status == .differs { differs = true }
            // Succeeded though its pairs differ: `--approve` settled them.
            if outcome.status == .success && outcome.summary.compared.differ { approved = true }
        case .noInput:
            switch kind {
            case .single: nothing = outcome.message
            case .folders:
                // A folder with no image file at all (only folders, or other
                // files) is not worth a line: a cron job over ~/Photos would
                // mail one every night.
                if outcome.summary.considered > 0 || outcome.summary.failed > 0 {
                    return interruption == nil ? [.noteNothingEligible, .seek] : end()
                }
            case .groups, .watch: break
            }
        case .interrupted, .terminated:
            interruption = interruption ?? outcome.status
            if kind == .single { stopLine = outcome.message }
        case .usage, .cannotCreateOutput, .ioError:
            failure = RunFailure(status: outcome.status, message: outcome.message ?? "")
        }
        if interruption != nil || failure != nil { return end() }
        return [.seek]
    }

    /// After the last pass: the page, only for a job that made its collages
    /// (a failed or stopped job never replaces an earlier page).
    private mutating func finishOrEnd() -> [Action] {
        guard finishes, failure == nil, done > 0 else { return end() }
        state = .finishing
        return [.finish]
    }

    private mutating func end() -> [Action] {
        state = .ended
        var facts = OutcomeFacts(interruption: interruption, failure: failure, failOnFlag: failOnFlag)
        facts.differs = differs
        facts.approved = approved
        switch kind {
        case .single:
            facts.nothingToDo = nothing
            facts.interruptionLine = stopLine
        case .folders:
            facts.scope = .folders
            if done == 0 { facts.nothingToDo = "no folder holds an eligible image" }
        case .groups:
            facts.nothingEligible = done == 0
        case .watch:
            facts.scope = .watch
        }
        return [.end(facts)]
    }
}
