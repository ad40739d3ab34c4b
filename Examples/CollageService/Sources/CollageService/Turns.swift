import Synchronization

/// At most `count` runs at once: a request beyond them waits (suspended,
/// holding no thread) until a run ends. First come, first served.
final class Turns: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(_ count: Int) {
        state = Mutex(State(free: count))
    }

    /// Waits for a turn. A task cancelled meanwhile still gets its turn
    /// (and then gives it back at once: its run stops before it starts).
    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Gives a turn back: to the first waiting, if any.
    func give() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
