import Dispatch
import Synchronization

/// Decides which decodes run: at most `slots` at once (`--jobs`), and
/// within a memory budget by their header's estimate
/// (`ImageHeader.decodeBytes`). Two 5120x2880 progressive JPEGs hold about
/// 90 MB each while decoding; with two jobs they would otherwise overlap and
/// double the peak. A decode larger than the whole budget runs alone.
///
/// The decode stage dispatches one more decode than there are slots, so
/// while a giant waits for memory, a small image behind it takes the free
/// slot instead of leaving a core idle.
final class DecodeBudget: Sendable {
    let limit: Int
    let slots: Int
    private struct State {
        var used = 0
        var running = 0
        /// Workers blocked until something is released.
        var waiting: [DispatchSemaphore] = []
    }
    private let state = Mutex(State())

    init(limit: Int, slots: Int = .max) {
        self.limit = limit
        self.slots = slots
    }

    /// Blocks the calling worker until `bytes` fit (or nothing else runs).
    func acquire(_ bytes: Int) {
        while true {
            let wait: DispatchSemaphore? = state.withLock { state in
                if state.running < slots && (state.running == 0 || state.used + bytes <= limit) {
                    state.used += bytes
                    state.running += 1
                    return nil
                }
                let semaphore = DispatchSemaphore(value: 0)
                state.waiting.append(semaphore)
                return semaphore
            }
            guard let wait else { return }
            wait.wait()  // woken by a release; then look again
        }
    }

    func release(_ bytes: Int) {
        let waiting = state.withLock { state in
            state.used -= bytes
            state.running -= 1
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.signal() }
    }

    func withBudget<R>(_ bytes: Int, _ body: () throws -> R) rethrows -> R {
        acquire(bytes)
        defer { release(bytes) }
        return try body()
    }
}
