/// The life of a `--diff` run as a pure state machine, beside `RunMachine`:
/// the shell (`DiffRun`) tells it what happened and performs the actions it
/// returns. Every pair is compared before any sheet is made, since the
/// sheets show the most changed first; then the sheets are saved one after
/// another, and nothing at all when nothing differs.
///
///     idle ──start──► comparing ──compared──► saving ──saved──► saving …
///       │                 │  (no sheet)         │  (last, failure, stop)
///       └─ unchanged,     └───────► end ◄───────┘
///          failed ─► end
struct DiffMachine: Equatable, Sendable {
    enum State: Equatable, Sendable {
        case idle
        case comparing
        case saving
        case ended
    }

    enum Input: Equatable, Sendable {
        /// The checks passed and the output is the run's: the pairs are walked and compared.
        case start
        /// `--skip-unchanged`: the sheets were made from the same files and options.
        case unchanged
        case failedBefore(RunFailure)
        /// Every pair is compared (or a signal ended the comparing); `sheets`
        /// of the differing ones are this run's to save.
        case compared(sheets: Int)
        case saved(RunMachine.SaveResult)
        case interrupted(ExitStatus, writing: Bool)
    }

    enum Action: Equatable, Sendable {
        case startComparing
        case reportUnchanged
        /// Compose and write the run's `index`-th sheet (0-based).
        case saveSheet(Int)
        /// Report the sheet just saved (placed, written) and keep its record.
        case publishSheet
        /// Tell how many differing pairs one sheet left out (without `--sheets`).
        case noticeLeftOut
        case cancelComparing
        /// Write the JUnit report, then end: `interruption` or `failure` if
        /// any, else the counts decide.
        case end(interruption: ExitStatus?, failure: RunFailure?, skipped: Bool)
    }

    private(set) var state = State.idle
    private(set) var sheets = 0
    private(set) var saved = 0
    private(set) var interruption: ExitStatus?
    private(set) var failure: RunFailure?

    mutating func handle(_ input: Input) -> [Action] {
        switch (state, input) {
        case (.ended, _):
            return []
        case (.idle, .start):
            state = .comparing
            return interruption == nil ? [.startComparing] : end()
        case (.idle, .unchanged):
            return interruption == nil ? [.reportUnchanged] + end(skipped: true) : end()
        case (.idle, .failedBefore(let failure)):
            self.failure = failure
            return end()
        case (.idle, .interrupted(let status, _)):
            interruption = interruption ?? status
            return []
        case (.comparing, .compared(let sheets)):
            self.sheets = sheets
            if interruption != nil || sheets == 0 { return end() }
            state = .saving
            return [.saveSheet(0)]
        case (.saving, .saved(let result)):
            switch result {
            case .failed(let failure):
                self.failure = failure
                return end()
            case .cancelled:
                return end()
            case .written, .nothing:
                let publish: [Action] = result == .nothing ? [] : [.publishSheet]
                saved += 1
                if interruption != nil { return publish + end() }
                if saved == sheets { return publish + [.noticeLeftOut] + end() }
                return publish + [.saveSheet(saved)]
            }
        case (_, .interrupted(let status, let writing)):
            guard interruption == nil else { return [] }
            interruption = status
            if state == .saving && writing { return [] }  // the write removes its temporary file, then reports
            return [.cancelComparing] + end()
        default:
            return []
        }
    }

    private mutating func end(skipped: Bool = false) -> [Action] {
        state = .ended
        return [.end(interruption: interruption, failure: failure, skipped: skipped)]
    }
}
