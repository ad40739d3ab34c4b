/// The inputs a run's machine hears from its checks (`RunMachine`'s enum
/// cases witness these).
protocol SessionCheckInput {
    static var start: Self { get }
    static var unchanged: Self { get }
    static func failedBefore(_ failure: RunFailure) -> Self
}

extension RunMachine.Input: SessionCheckInput {}

extension OutputSession {
    /// Takes the output for a run (a wait for another run's lock is told
    /// on `hub`) and says what its machine is told: `keep` gets the session
    /// when the run may start, or the outputs found unchanged.
    static func open<Input: SessionCheckInput>(_ configuration: CollageConfiguration, hub: EventHub,
                                          stop: () -> ExitStatus?,
                                          keep: (OutputSession?, [RunState.Output]) -> Void) -> Input {
        let output = configuration.output
        switch open(configuration, waiting: { hub.send(.notice(OutputLock.waitingNotice(for: output))) }, stop: stop) {
        case .failed(let failure):
            return .failedBefore(failure)
        case .unchanged(let state):
            keep(nil, state.outputs)
            return .unchanged
        case .ready(let session):
            keep(session, [])
            return .start
        }
    }
}
