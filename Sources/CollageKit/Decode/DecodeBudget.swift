import Dispatch
import Locking
import ProcessPages
import Vips

/// The memory the decodes of a run may hold at once, by their headers'
/// estimate (`ImageHeader.decodeBytes`): one budget per run, shared by the
/// decode window (which asks without blocking, and picks another image when
/// one does not fit) and a sheet's re-decodes (which wait their turn). Two
/// 5120x2880 progressive JPEGs hold about 88 MB each while decoding; within
/// the default 116 MiB they take turns, while the other core decodes what
/// fits beside them (about 26 MiB beside one: any baseline JPEG of that size).
/// A decode larger than the whole budget runs when nothing else does.
///
/// While a heavy decode (a quarter of the budget or more) holds its share,
/// the allocator is asked to return what the decodes beside it free
/// (`AllocatorPolicy`), so that the run's peak is the budget's, not the
/// budget's plus what the arenas kept from earlier decodes: in a process
/// that asked for the batch allocator (`CollageProcess.prepareForBatch`, as
/// the command line does); elsewhere the allocator is left as it is.
final class DecodeBudget: WorkBudget {
    let limit: Int
    private struct State {
        var used = 0
        var peak = 0
        var running = 0
        /// Heavy decodes holding their share now.
        var heavy = 0
        /// Re-decodes blocked until something is released: while one waits,
        /// the window starts nothing new, so it cannot be starved.
        var waiting: [DispatchSemaphore] = []
        /// Called after every release (the window's shell, to start more).
        var observers: [@Sendable () -> Void] = []
    }
    /// `Locked`, not `Mutex`: the decodes contend for it, and ThreadSanitizer must see its lock.
    private let state = Locked(State())

    /// What the allocator is asked while heavy decodes run, and after.
    let allocator: AllocatorPolicy

    init(limit: Int, allocator: AllocatorPolicy = .tightenBesideHeavy) {
        self.limit = limit
        self.allocator = allocator
    }

    /// A quarter of the budget or more (`WorkCost.isHeavy`): a giant
    /// progressive JPEG, which the decode window starts first and beside
    /// which memory is tight.
    private func isHeavy(_ bytes: Int) -> Bool { WorkCost.isHeavy(bytes, limit: limit) }

    /// Reserves `bytes` if they fit beside what runs (or nothing runs) and
    /// nobody is waiting; never blocks.
    func tryAcquire(_ bytes: Int) -> Bool {
        let started: Bool? = state.withLock { state in
            guard state.waiting.isEmpty, fits(bytes, state) else { return nil }
            return reserve(bytes, &state)
        }
        if started == true { ProcessPages.releaseLoadedCodePagesAgain() }
        return started != nil
    }

    /// Blocks the calling thread until `bytes` fit (or nothing else runs).
    func acquire(_ bytes: Int) {
        while true {
            let next: (wait: DispatchSemaphore?, startedHeavy: Bool) = state.withLock { state in
                if fits(bytes, state) { return (nil, reserve(bytes, &state)) }
                let semaphore = DispatchSemaphore(value: 0)
                state.waiting.append(semaphore)
                return (semaphore, false)
            }
            guard let wait = next.wait else {
                if next.startedHeavy { ProcessPages.releaseLoadedCodePagesAgain() }
                return
            }
            wait.wait()  // woken by a release; then look again
        }
    }

    func release(_ bytes: Int) {
        let (waiting, observers) = state.withLock { state in
            state.used -= bytes
            state.running -= 1
            if isHeavy(bytes) {
                state.heavy -= 1
                if state.heavy == 0 { allocator.heavyDecodesEnded() }
            }
            defer { state.waiting = [] }
            return (state.waiting, state.observers)
        }
        for waiter in waiting { waiter.signal() }
        for observer in observers { observer() }
    }

    /// Counts `bytes` kept beyond a decode (what a `--diff` cell is drawn
    /// from) as used until `letGo`, without a decode running: what starts
    /// next must fit beside them (or start alone). Never blocks; the
    /// caller keeps them small beside the limit (`KeptDifferences`).
    func hold(_ bytes: Int) {
        state.withLock { state in
            state.used += bytes
            state.peak = max(state.peak, state.used)
        }
    }

    /// Lets go of bytes `hold` counted.
    func letGo(_ bytes: Int) {
        let (waiting, observers) = state.withLock { state in
            state.used -= bytes
            defer { state.waiting = [] }
            return (state.waiting, state.observers)
        }
        for waiter in waiting { waiter.signal() }
        for observer in observers { observer() }
    }

    func withBudget<R>(_ bytes: Int, _ body: () throws -> R) rethrows -> R {
        acquire(bytes)
        defer { release(bytes) }
        return try body()
    }

    /// `observer` runs (on the releasing thread) after every release.
    func onRelease(_ observer: @escaping @Sendable () -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Bytes reserved now, and the most reserved at once.
    var used: (now: Int, peak: Int) { state.withLock { ($0.used, $0.peak) } }

    /// Whether this reservation tightened the allocator (the first heavy
    /// decode beside which memory is tight): then the caller, out of the
    /// lock, takes the code pages read since start out of the resident set
    /// (`ProcessPages.releaseLoadedCodePagesAgain`): about 6 MiB off the peak of 300
    /// photos (paired runs, BENCHMARKS.md).
    private func reserve(_ bytes: Int, _ state: inout State) -> Bool {
        state.used += bytes
        state.peak = max(state.peak, state.used)
        state.running += 1
        guard isHeavy(bytes) else { return false }
        state.heavy += 1
        // Under the lock, so that switching on and off never cross; rare.
        guard state.heavy == 1 else { return false }
        return allocator.heavyDecodeStarts()
    }

    private func fits(_ bytes: Int, _ state: State) -> Bool {
        state.running == 0 || bytes <= limit - state.used
    }
}

/// What a run's allocator is asked as heavy decodes (a quarter of the decode
/// budget or more) start and end: glibc's mmap threshold, and whether its
/// arenas give back their free pages now (`Vips.memoryPressure`,
/// `Vips.reuseLargeBuffers`).
enum AllocatorPolicy: Sendable {
    /// A collage's decodes: beside a heavy decode, buffers of 48 KiB and up
    /// are mapped (returned when freed) and the arenas trimmed; after it, 256 KiB.
    case tightenBesideHeavy
    /// `--diff`'s whole pictures, large buffers of a few sizes made and
    /// freed pair after pair: kept in the arenas for the next pair
    /// (`reuseLargeBuffers`) while the pairs are light; while a heavy pair
    /// runs, mapped and given back (the 256 KiB threshold, the arenas
    /// trimmed): the arenas kept such pictures of pairs of other sizes
    /// beside the next pairs and the sheets. Measured on 36 differing pairs
    /// of 1280x8000 pages: 121-123 MiB at the peak instead of 155-179, the
    /// same time; 1280x2000 pairs are light and keep reusing (BENCHMARKS.md).
    case reuseUnlessHeavy

    /// The first heavy decode is starting (under the budget's lock); true
    /// when the allocator was tightened, for `ProcessPages`' release.
    func heavyDecodeStarts() -> Bool {
        switch self {
        case .tightenBesideHeavy:
            Vips.memoryPressure(tight: true)
            return true
        case .reuseUnlessHeavy:
            Vips.memoryPressure(tight: false)
            return false
        }
    }

    /// The last heavy decode has ended (under the budget's lock).
    func heavyDecodesEnded() {
        switch self {
        case .tightenBesideHeavy: Vips.memoryPressure(tight: false)
        case .reuseUnlessHeavy: Vips.reuseLargeBuffers()
        }
    }
}
