/// What one value costs while `orderedParallelMap` has it.
struct WorkCost: Sendable, Equatable {
    /// What its transform holds while it runs (a decoder's buffers, say),
    /// counted against the memory budget from its start to its end.
    var running: Int
    /// What its result holds (a decoded tile, say), counted against the
    /// window from its start until it is emitted.
    var held: Int

    /// A cost of `running` bytes while the work runs, `held` after it while its result waits.
    init(running: Int, held: Int) {
        self.running = running
        self.held = held
    }

    /// Work that holds nothing the budget counts.
    static let free = WorkCost(running: 0, held: 0)

    /// A running cost of a quarter of the budget or more: `OrderedWindow`
    /// starts such a value as soon as it sees it, so that it is done by its
    /// turn, and a budget may hold memory tighter while one runs.
    static func isHeavy(_ running: Int, limit: Int) -> Bool { running >= limit / 4 }
}

/// How far `orderedParallelMap` may work, and on how much at once.
struct WindowLimits: Sendable, Equatable {
    /// Transforms running at once.
    var jobs: Int
    /// The bytes the work started ahead of what downstream asked for may
    /// hold: the transforms work ahead of demand until the results started
    /// and not yet taken hold this much, so that a worker is not idle while
    /// a long transform, or downstream's own work, runs on another.
    var aheadBytes: Int
    /// The most values in the window beyond what downstream asked for (each
    /// may hold a resource, an open file say, until it is transformed).
    var aheadCount: Int

    /// At most `jobs` at once, and results waiting ahead of demand up to
    /// `aheadBytes` and `aheadCount` (0: none beyond what was asked for).
    init(jobs: Int, aheadBytes: Int = 0, aheadCount: Int = 0) {
        precondition(jobs >= 1 && aheadBytes >= 0 && aheadCount >= 0)
        self.jobs = jobs
        self.aheadBytes = aheadBytes
        self.aheadCount = aheadCount
    }

    /// Nothing ahead of demand.
    static func demandOnly(jobs: Int) -> WindowLimits { WindowLimits(jobs: jobs) }
}

/// The memory that `orderedParallelMap` reserves each value's running cost
/// in, from the transform's start to its end. It may be shared with work
/// outside the operator, which then releases memory the operator waits for.
protocol WorkBudget: AnyObject, Sendable {
    /// The most it admits at once (a value alone may be larger).
    var limit: Int { get }
    /// Reserves `bytes` if they fit now; never blocks.
    func tryAcquire(_ bytes: Int) -> Bool
    func release(_ bytes: Int)
    /// `observer` runs, on the releasing thread, after every release.
    func onRelease(_ observer: @escaping @Sendable () -> Void)
}
