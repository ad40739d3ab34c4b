import Logging

/// A run's hold on its output: the lock beside it (runs writing the same
/// output take turns), the clean-up of what killed runs left, the
/// `--skip-unchanged` comparison, and, at the end, the state kept for the
/// next run. The lock is released when the session goes.
final class OutputSession: Sendable {
    enum Opening {
        case ready(OutputSession)
        /// The outputs were made from the same inputs and options.
        case unchanged(RunState)
        case failed(RunFailure)
    }

    private let configuration: CollageConfiguration
    private let lock: OutputLock
    /// With `--shard` and `--skip-unchanged`: the state of an earlier run of
    /// this shard with the same options (finished or cut short), whose
    /// sheets are kept where their images have not changed.
    let previous: RunState?

    private init(configuration: CollageConfiguration, lock: OutputLock, previous: RunState?) {
        self.configuration = configuration
        self.lock = lock
        self.previous = previous
    }

    /// Waits for the lock (`waiting` is told once if it is busy; `stop` is
    /// polled while waiting, so that a signal still ends the run).
    static func open(_ configuration: CollageConfiguration, waiting: () -> Void,
                     stop: () -> ExitStatus?) -> Opening {
        let output = configuration.sidecarOutput
        let lock: OutputLock
        switch OutputLock.acquire(for: output, waiting: waiting, shouldStop: { stop() != nil }) {
        case .success(let held):
            lock = held
        case .failure(.stopped):
            return .failed(RunFailure(status: stop() ?? .interrupted, message: "interrupted while waiting for another run: nothing written"))
        case .failure(.cannotCreate(let message)):
            return .failed(RunFailure(status: .cannotCreateOutput, message: message))
        }
        // Holding the lock, no live run is writing: what temporary files
        // remain were left by a run that was killed.
        AtomicWriter.removeLeftovers(beside: output)
        let state = configuration.skipUnchanged ? RunState.load(for: output) : nil
        if let state, state.matches(configuration) {
            return .unchanged(state)  // the lock goes with `lock`
        }
        let previous = configuration.shard != nil && configuration.sheets
            && state?.options == RunState.options(of: configuration) ? state : nil
        return .ready(OutputSession(configuration: configuration, lock: lock, previous: previous))
    }

    /// After a clean run, what it was made from goes beside the output; after
    /// any other, an older state is removed so that the next run redoes it.
    func keepState(_ outcome: RunOutcome, _ tally: Tally, logger: Logger) {
        guard configuration.keepsState else { return }
        guard outcome.status == .success, !tally.outputs.isEmpty else {
            // A shard keeps what it wrote before it stopped: run again, it
            // redoes only the rest (see `keepProgress`).
            if configuration.shard == nil || tally.outputs.isEmpty {
                RunState.remove(for: configuration.sidecarOutput)
            } else {
                keepProgress(tally, logger: logger)
            }
            return
        }
        var inputs = tally.considered
        // (A run that read every header to order them depends on them all,
        // except a group's, which depends on the group's first images; with
        // --pick, every image was looked at: it depends on them all.)
        let stoppedAtCap = !configuration.sheets && tally.summary.used == configuration.effectiveCap && !configuration.pick
            && (!configuration.readsEveryHeader || configuration.group?.images != nil)
        if stoppedAtCap, let last = tally.outputs.last?.images.last,
           let index = inputs.lastIndex(where: { $0.path == last }) {
            inputs = Array(inputs[...index])
        }
        write(RunState(options: RunState.options(of: configuration), complete: !stoppedAtCap,
                       outputs: tally.outputs, inputs: inputs), logger: logger)
    }

    /// With `--shard`, after each sheet: the sheets written so far, marked
    /// partial (never enough for the whole run to be skipped), so that a
    /// shard killed half-way and run again keeps them instead of redoing
    /// them (a batch system retries a task from its start).
    func keepProgress(_ tally: Tally, logger: Logger) {
        guard configuration.keepsState, configuration.shard != nil, !tally.outputs.isEmpty else { return }
        var state = RunState(options: RunState.options(of: configuration), complete: false,
                             outputs: tally.outputs, inputs: tally.considered)
        state.partial = true
        write(state, logger: logger)
    }

    private func write(_ state: RunState, logger: Logger) {
        let output = configuration.sidecarOutput
        do {
            _ = try AtomicWriter(stem: output).write(state.serialised, to: RunState.path(for: output))
        } catch {
            logger.warning("cannot keep the state for --skip-unchanged: \(error)")
        }
    }
}
