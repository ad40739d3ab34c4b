import Locking

/// The run's walk, shared by reference with the source publisher so that,
/// after the cap cancelled the scan, the run can still look one step further.
final class SharedWalk: PullSource, Sendable {
    private struct State {
        var walk: InputWalk
        var exhausted = false
    }
    private let state: Locked<State>
    /// Apart from the walk's lock: the walk reads it while it steps.
    private let mutedFlag = Locked(false)
    private let instrumentation: RunInstrumentation

    init(instrumentation: RunInstrumentation, _ walk: InputWalk) {
        self.instrumentation = instrumentation
        state = Locked(State(walk: walk))
    }

    /// Whether the walk reports what it meets (off for the look past the cap).
    var muted: Bool { mutedFlag.withLock { $0 } }

    func next() -> InputFile? {
        // Stepped under the lock: what the walk reports goes to the event
        // stream, never back here.
        let file = state.withLock { state -> InputFile? in
            guard !state.exhausted else { return nil }
            let file = state.walk.next()
            if file == nil { state.exhausted = true }
            return file
        }
        if file != nil && !muted { instrumentation.scanned() }
        return file
    }

    /// The "limit reached" notice: whether eligible images were left
    /// out by the cap. The walk was cancelled at the cap; the same walk
    /// goes on from where it stopped for a few more candidates (headers
    /// only, nothing reported) to find out: no folder is read twice
    /// (`RunInstrumentation.listings` counts them).
    func leftOutNotice(_ tally: Tally, probe: Probe, cap: Int) -> String? {
        var known = tally.accepted - tally.summary.used - tally.decodeFailures
        if known <= 0 {
            mutedFlag.withLock { $0 = true }
            for _ in 0..<64 {
                guard let file = next() else { break }
                if case .success = probe.check(file.path, sidecars: file.sidecars) { known = 1; break }
            }
        }
        return Self.leftOut(known, cap: cap)
    }

    /// The notice for `known` eligible images left out by the cap (nil for none).
    static func leftOut(_ known: Int, cap: Int) -> String? {
        guard known > 0 else { return nil }
        let count = known > 1 ? "at least \(known) more eligible images were" : "more eligible images were"
        return "--max \(cap) reached: \(count) left out; --sheets puts them all on contact sheets"
    }
}
