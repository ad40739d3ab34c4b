@preconcurrency import OpenCombine

/// One job's event stream, shared: the JSON writer, the progress line and
/// the summary each subscribe, nothing is computed twice, and a subscriber
/// that comes late still gets the last 64 events, the final summary among
/// them (`shareReplay`). Single, per-folder and watch runs all
/// publish through one; a job made of runs forwards theirs.
final class EventHub: Sendable {
    private let subject = PassthroughSubject<PipelineEvent, Never>()
    private let shared: Publishers.ShareReplay<PassthroughSubject<PipelineEvent, Never>>

    init() {
        shared = subject.shareReplay(capacity: 64)
    }

    var events: AnyPublisher<PipelineEvent, Never> { shared.eraseToAnyPublisher() }

    func send(_ event: PipelineEvent) { subject.send(event) }

    /// Runs `job` to its end with its events forwarded here (all but its
    /// `finished`, which the enclosing job reports itself, and any `keep`
    /// refuses), and returns its outcome.
    func forwarding(_ job: CollageJob, keep: @escaping (PipelineEvent) -> Bool = { _ in true }) -> RunOutcome {
        let forward = job.events.sink { [subject] event in
            if case .finished = event { return }
            if keep(event) { subject.send(event) }
        }
        defer { forward.cancel() }
        return job.run()
    }
}
