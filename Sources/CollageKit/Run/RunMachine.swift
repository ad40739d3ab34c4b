/// The life of one run as a pure state machine: the shell (`CollageRun`)
/// tells it what happened and performs the actions it returns. It decides
/// when a sheet is saved, when the next one is asked for, and when and how
/// the run ends; it touches nothing itself, so it is tested alone.
///
///     idle ──start──► collecting ──sheet──► saving ──saved──► collecting …
///       │                 │                    │
///       └─ unchanged,     └──────── end ◄──────┘   (upstream done, cap, stop, failure)
///          failed ─► end
struct RunMachine: Equatable, Sendable {
    enum State: Equatable, Sendable {
        /// Before the pipeline starts (checks, waiting for the lock).
        case idle
        /// The sink has asked for a sheet and waits for it.
        case collecting
        /// A sheet is being composed and written.
        case saving
        /// The outcome is decided; nothing more happens.
        case ended
    }

    enum Input: Equatable, Sendable {
        /// The checks passed and the output is the run's: the pipeline starts.
        case start
        /// `--skip-unchanged`: the outputs were made from the same inputs and options.
        case unchanged
        /// A check before the start failed (an INPUT, the output's folder, its lock).
        case failedBefore(RunFailure)
        /// The sink received a sheet. `empty`: nothing of it is left to
        /// save (`--require-even` dropped its only image). `stop`: a signal
        /// was seen meanwhile (it may end the walk before `interrupted`).
        case sheet(empty: Bool, stop: ExitStatus?)
        /// Upstream finished: no more sheets. `stop`: a signal ended the walk.
        case upstreamFinished(stop: ExitStatus?)
        case saved(SaveResult)
        /// SIGINT or SIGTERM. `writing`: the writer is putting a file on
        /// disk now and will remove its temporary file before it reports.
        case interrupted(ExitStatus, writing: Bool)
    }

    enum SaveResult: Equatable, Sendable {
        /// `full`: the sheet holds as many images as the cap allows.
        case written(full: Bool)
        /// Every image of the sheet failed when decoded again: nothing to write.
        case nothing
        case cancelled
        case failed(RunFailure)
    }

    enum Action: Equatable, Sendable {
        /// Start the pipeline: the walk, the decoders, the sink.
        case startPipeline
        /// Report the outputs found unchanged.
        case reportUnchanged
        /// Compose and write the sheet just received.
        case save
        /// Report what the sheet just saved holds (placed, flagged, written)
        /// and keep its record: it was saved while it was still the run's.
        case publishSheet
        /// Tell how many eligible images the cap left out (one collage only).
        case noticeLeftOut
        /// Ask upstream for the next sheet (resume the pausable sink).
        case requestSheet
        /// Cancel the pipeline up to the walk.
        case cancelUpstream
        /// End the run: `interruption` or `failure` if any, else the counts decide.
        case end(interruption: ExitStatus?, failure: RunFailure?)
    }

    /// One collage (stop at the cap) or the whole input in sheets.
    let sheets: Bool
    private(set) var state = State.idle
    private(set) var upstreamDone = false
    private(set) var interruption: ExitStatus?
    private(set) var failure: RunFailure?

    init(sheets: Bool) {
        self.sheets = sheets
    }

    mutating func handle(_ input: Input) -> [Action] {
        switch (state, input) {
        case (.ended, _):
            return []
        case (.idle, .start):
            state = .collecting
            // Stopped between the checks and the start: nothing is begun.
            return interruption == nil ? [.startPipeline] : end()
        case (.idle, .unchanged):
            return interruption == nil ? [.reportUnchanged] + end() : end()
        case (.idle, .failedBefore(let failure)):
            self.failure = failure
            return end()
        case (.idle, .interrupted(let status, _)):
            interruption = interruption ?? status
            return []
        case (.idle, _):
            return []
        case (_, .start), (_, .unchanged), (_, .failedBefore):
            return []
        case (.collecting, .sheet(let empty, let stop)):
            if let stop {
                // A signal ended the walk: the sheet it left unfinished is not saved.
                interruption = interruption ?? stop
                return [.cancelUpstream] + end()
            }
            if empty { return upstreamDone ? end() : [.requestSheet] }
            state = .saving
            return [.save]
        case (.saving, .sheet):
            preconditionFailure("a sheet arrived while one was being saved: the sink was not paused")
        case (_, .upstreamFinished(let stop)):
            upstreamDone = true
            if let stop { interruption = interruption ?? stop }
            return state == .collecting ? end() : []
        case (.saving, .saved(let result)):
            state = .collecting
            switch result {
            case .failed(let failure):
                self.failure = failure
                return [.cancelUpstream] + end()
            case .cancelled:
                return [.cancelUpstream] + end()
            case .written(let full):
                // One collage at the cap: what the cap left out is told.
                let notice: [Action] = !sheets && full && interruption == nil ? [.noticeLeftOut] : []
                if upstreamDone || interruption != nil { return [.publishSheet] + notice + end() }
                // One collage is all: the cap was reached and the scan goes
                // no further. (Asking again would let the cap's `prefix` take
                // one more image, which is how it finds its end.)
                if !sheets { return [.publishSheet, .cancelUpstream] + notice + end() }
                return [.publishSheet, .requestSheet]
            case .nothing:
                if upstreamDone || interruption != nil { return end() }
                if !sheets { return [.cancelUpstream] + end() }
                return [.requestSheet]
            }
        case (.collecting, .saved):
            return []
        case (_, .interrupted(let status, let writing)):
            guard interruption == nil else { return [] }
            interruption = status
            // A sheet being composed or encoded is abandoned (the writer will
            // refuse it); one being written to disk is waited for, so that its
            // temporary file is removed before the process ends.
            if state == .saving && writing { return [.cancelUpstream] }
            return [.cancelUpstream] + end()
        }
    }

    private mutating func end() -> [Action] {
        state = .ended
        return [.end(interruption: interruption, failure: failure)]
    }
}
