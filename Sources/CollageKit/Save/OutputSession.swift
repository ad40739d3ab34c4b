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
        case failed(RunOutcome)
    }

    private let configuration: CollageConfiguration
    private let lock: OutputLock

    private init(configuration: CollageConfiguration, lock: OutputLock) {
        self.configuration = configuration
        self.lock = lock
    }

    /// Waits for the lock (`waiting` is told once if it is busy; `stop` is
    /// polled while waiting, so that a signal still ends the run).
    static func open(_ configuration: CollageConfiguration, waiting: () -> Void,
                     stop: () -> ExitStatus?) -> Opening {
        let output = configuration.output
        let lock: OutputLock
        switch OutputLock.acquire(for: output, waiting: waiting, shouldStop: { stop() != nil }) {
        case .success(let held):
            lock = held
        case .failure(.stopped):
            return .failed(.early(stop() ?? .interrupted, "interrupted while waiting for another run: nothing written"))
        case .failure(.cannotCreate(let message)):
            return .failed(.early(.cannotCreateOutput, message))
        }
        // Holding the lock, no live run is writing: what temporary files
        // remain were left by a run that was killed.
        AtomicWriter.removeLeftovers(beside: output)
        if configuration.skipUnchanged, let state = RunState.load(for: output), state.matches(configuration) {
            return .unchanged(state)  // the lock goes with `lock`
        }
        return .ready(OutputSession(configuration: configuration, lock: lock))
    }

    /// After a clean run, what it was made from goes beside the output; after
    /// any other, an older state is removed so that the next run redoes it.
    func keepState(_ outcome: RunOutcome, _ tally: Tally, logger: Logger) {
        guard configuration.keepsState else { return }
        guard outcome.status == .success, !tally.outputs.isEmpty else {
            RunState.remove(for: configuration.output)
            return
        }
        var inputs = tally.considered
        let stoppedAtCap = !configuration.sheets && tally.summary.used == configuration.effectiveCap
        if stoppedAtCap, let last = tally.outputs.last?.images.last,
           let index = inputs.lastIndex(where: { $0.path == last }) {
            inputs = Array(inputs[...index])
        }
        let state = RunState(options: RunState.options(of: configuration), complete: !stoppedAtCap,
                             outputs: tally.outputs, inputs: inputs)
        do {
            _ = try AtomicWriter(stem: configuration.output).write(state.serialised,
                                                                   to: RunState.path(for: configuration.output))
        } catch {
            logger.warning("cannot keep the state for --skip-unchanged: \(error)")
        }
    }
}
