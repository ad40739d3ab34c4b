@preconcurrency import OpenCombine

/// The state machine behind `orderedParallelMap`, pure so that it can be
/// tested alone: it decides how much to ask of upstream, which value to
/// transform next, and what to emit; its shell performs those decisions.
///
/// The window is every value that has arrived and is not yet emitted:
/// waiting to start, being transformed, or
/// done and waiting for its turn. Values are asked of upstream for two
/// reasons only: downstream asked for them (always granted, so demand never
/// waits on the window), or the window holds fewer than `aheadCount` values
/// beyond that demand and its started work holds less than `aheadBytes`
/// (one value at a time, since a value's cost is known only once it
/// arrives, and only once downstream has asked for something).
///
/// Which waiting value starts, at most `jobs` at once and each only when
/// the memory budget admits its running cost (the shell's `tryAcquire`):
/// heavy values (`WorkCost.isHeavy`: a quarter of the budget or more) as
/// soon as the window sees them, so that they are done by their turn;
/// then the others, oldest first. A value that downstream has not asked for
/// starts only while the started work (running and done, not emitted) stays
/// within `aheadBytes`: what the results hold at once is at most what was
/// asked for plus `aheadBytes`. A value may start ahead of one that waits
/// for memory only if the waiting one will still fit beside it and
/// everything else started ahead of it, so a giant never waits on an endless
/// stream of small ones. Results are emitted strictly in arrival order.
struct OrderedWindow<Input, Output> {
    let limits: WindowLimits
    /// The memory budget's size (what `tryAcquire` admits at most), for the
    /// rule that lets a value start ahead of an older one.
    let memory: Int
    private(set) var demand: Subscribers.Demand = .none
    /// Asked of upstream, not yet arrived.
    private(set) var requested = 0
    /// Arrived, not started, oldest first.
    private var pending: [(sequence: Int, input: Input, cost: WorkCost)] = []
    /// Started and not finished: each one's cost.
    private var running: [Int: WorkCost] = [:]
    /// Done, waiting for their turn: each result and what it holds.
    private var ready: [Int: (value: Output, held: Int)] = [:]
    /// The sum of `held` over the values started and not yet emitted.
    private(set) var heldBytes = 0
    private var nextIn = 0
    private var nextOut = 0
    private(set) var upstreamFinished = false
    /// Nothing is worked on ahead before downstream first asks for something.
    private var asked = false
    private(set) var completed = false

    init(limits: WindowLimits, memory: Int = .max) {
        self.limits = limits
        self.memory = memory
    }

    /// Values in the window.
    var count: Int { nextIn - nextOut }
    var runningCount: Int { running.count }
    /// Results done and waiting for their turn or for demand.
    var waiting: Int { ready.count }

    /// Downstream asked for more.
    mutating func downstreamRequested(_ more: Subscribers.Demand) {
        demand += more
        if more > 0 { asked = true }
    }

    /// How many values to request of upstream now (and counts them as requested).
    mutating func upstreamRequest() -> Int {
        guard !upstreamFinished, !completed else { return 0 }
        let inWindow = count + requested
        var ask: Int
        if let wanted = demand.max {
            ask = max(0, wanted - inWindow)
        } else {
            // Unlimited demand: as many as there are jobs, then look ahead as below.
            ask = max(0, limits.jobs - (requested + pending.count + running.count))
        }
        if ask == 0 && requested == 0 && asked {
            let beyondDemand = inWindow - (demand.max ?? 0)
            if beyondDemand < limits.aheadCount && heldBytes < limits.aheadBytes { ask = 1 }
        }
        requested += ask
        return ask
    }

    /// A value arrived from upstream: its sequence number.
    @discardableResult
    mutating func received(_ input: Input, cost: WorkCost) -> Int {
        precondition(requested > 0, "upstream sent more than was requested")
        requested -= 1
        let sequence = nextIn
        nextIn += 1
        guard !completed else { return sequence }
        pending.append((sequence, input, cost))
        return sequence
    }

    /// The next value to transform, if one may start now. `tryAcquire`
    /// reserves a value's running cost in the memory budget (true) or says
    /// it does not fit now (false); the shell releases it when the
    /// transform ends.
    mutating func nextStart(tryAcquire: (Int) -> Bool) -> (sequence: Int, input: Input, cost: WorkCost)? {
        guard !completed, running.count < limits.jobs else { return nil }
        let demanded = demand.max.map { nextOut + $0 } ?? .max  // sequences below this were asked for
        let order = pending.indices.sorted { a, b in
            let (heavyA, heavyB) = (isHeavy(pending[a].cost), isHeavy(pending[b].cost))
            return heavyA != heavyB ? heavyA : pending[a].sequence < pending[b].sequence
        }
        // Values passed over because they did not fit (not for the window's bytes).
        var skipped: [(rank: Int, running: Int)] = []
        let runningRanks = running.map { (rank: rankOf($0.key, in: order), running: $0.value.running) }
        for (rank, index) in order.enumerated() {
            let candidate = pending[index]
            if candidate.sequence >= demanded && Self.sum([heldBytes, candidate.cost.held]) > limits.aheadBytes {
                continue  // not asked for, and the window's started work is full
            }
            let leavesRoom = skipped.allSatisfy { older in
                // Everything started ahead of `older` (after it in this order,
                // still running), plus the candidate, must leave room for it.
                let startedAhead = runningRanks.lazy.filter { $0.rank > older.rank }.map(\.running)
                return Self.sum([older.running, candidate.cost.running] + startedAhead) <= memory
            }
            if leavesRoom && tryAcquire(candidate.cost.running) {
                pending.remove(at: index)
                running[candidate.sequence] = candidate.cost
                heldBytes += candidate.cost.held
                return (candidate.sequence, candidate.input, candidate.cost)
            }
            skipped.append((rank, candidate.cost.running))
        }
        return nil
    }

    /// Nothing is heavy without a budget.
    private func isHeavy(_ cost: WorkCost) -> Bool {
        memory != .max && WorkCost.isHeavy(cost.running, limit: memory)
    }

    /// Where a running value stands in this round's order: heavy ones first,
    /// then by age (running values are not pending, so they are ranked by
    /// the same key).
    private func rankOf(_ sequence: Int, in order: [Int]) -> Int {
        let cost = running[sequence]!
        let heavy = isHeavy(cost)
        var rank = 0
        for index in order {
            let other = pending[index]
            let before = isHeavy(other.cost) != heavy ? isHeavy(other.cost) : other.sequence < sequence
            if before { rank += 1 }
        }
        return rank
    }

    /// A sum of sizes that saturates instead of trapping.
    private static func sum(_ values: [Int]) -> Int {
        values.reduce(0) { total, value in
            let (next, overflow) = total.addingReportingOverflow(value)
            return overflow ? .max : next
        }
    }

    /// A transform finished; its running cost is the shell's to release.
    mutating func transformed(_ sequence: Int, _ value: Output) {
        let cost = running.removeValue(forKey: sequence)
        guard !completed else { return }
        ready[sequence] = (value, cost?.held ?? 0)
    }

    /// The next value to emit, if its turn has come and downstream wants it.
    /// Call `emitted(additional:)` after sending it.
    mutating func nextEmission() -> Output? {
        guard !completed, demand > 0, let result = ready.removeValue(forKey: nextOut) else { return nil }
        heldBytes -= result.held
        nextOut += 1
        demand -= 1
        return result.value
    }

    mutating func emitted(additional: Subscribers.Demand) {
        demand += additional
    }

    /// Upstream finished: nothing more will arrive.
    mutating func finishUpstream() {
        upstreamFinished = true
        requested = 0
    }

    /// True once, when downstream should get `.finished`: upstream is done
    /// and every value has been emitted.
    mutating func shouldComplete() -> Bool {
        guard upstreamFinished, !completed, running.isEmpty, pending.isEmpty, ready.isEmpty else { return false }
        completed = true
        return true
    }

    /// Downstream cancelled: nothing more starts, results still running are
    /// dropped when they land. Returns the inputs that never started.
    @discardableResult
    mutating func cancel() -> [Input] {
        completed = true
        ready.removeAll()
        defer { pending.removeAll() }
        return pending.map(\.input)
    }
}
