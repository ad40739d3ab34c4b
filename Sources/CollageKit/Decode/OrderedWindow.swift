@preconcurrency import OpenCombine

/// The state machine behind `orderedParallelMap`, pure so that it can be
/// tested alone: it decides how much to ask of upstream and what to emit,
/// and its shell performs those decisions.
///
/// The window is everything asked of upstream and not yet emitted: values
/// requested but not arrived, values being transformed, results waiting for
/// their turn. It never exceeds the downstream demand plus `lookahead`: at
/// most that many values are transformed ahead of what downstream asked for
/// (the decode window), so that the decoders are not idle while the last
/// image of a sheet finishes or while a sheet is written; once the window is
/// full nothing more is asked of upstream. Of the window, at most `limit`
/// are requested or being transformed at once; a result that waits for an
/// earlier, slower one does not hold a slot, so one big image does not stall
/// the other decoders. (Unlimited demand is treated as `2 * limit`.)
struct OrderedWindow<Value> {
    let limit: Int
    let lookahead: Int
    private(set) var demand: Subscribers.Demand = .none
    private(set) var requested = 0
    private(set) var running = 0
    private var ready: [Int: Value] = [:]
    private var nextIn = 0
    private var nextOut = 0
    private(set) var upstreamFinished = false
    /// Nothing is worked on ahead before downstream first asks for something.
    private var asked = false
    private(set) var completed = false

    init(limit: Int, lookahead: Int = 0) {
        precondition(limit >= 1 && lookahead >= 0)
        self.limit = limit
        self.lookahead = lookahead
    }

    var waiting: Int { ready.count }
    var window: Int { requested + running + ready.count }
    /// Requested or being transformed: what occupies the `limit` slots.
    var inFlight: Int { requested + running }

    /// Downstream asked for more.
    mutating func downstreamRequested(_ more: Subscribers.Demand) {
        demand += more
        if more > 0 { asked = true }
    }

    /// How many values to request of upstream now (and counts them as requested).
    mutating func upstreamRequest() -> Int {
        guard !upstreamFinished, !completed else { return 0 }
        let windowLimit = demand == .unlimited ? 2 * limit : (demand.max ?? 0) + (asked ? lookahead : 0)
        let count = max(0, min(limit - inFlight, windowLimit - window))
        requested += count
        return count
    }

    /// A value arrived from upstream: its sequence number, to transform.
    mutating func received() -> Int {
        precondition(requested > 0, "upstream sent more than was requested")
        requested -= 1
        running += 1
        defer { nextIn += 1 }
        return nextIn
    }

    /// A transform finished.
    mutating func transformed(_ sequence: Int, _ value: Value) {
        running -= 1
        guard !completed else { return }
        ready[sequence] = value
    }

    /// The next value to emit, in input order, if its turn has come and
    /// downstream wants it. Call `emitted(additional:)` after sending it.
    mutating func nextEmission() -> Value? {
        guard !completed, demand > 0, let value = ready.removeValue(forKey: nextOut) else { return nil }
        nextOut += 1
        demand -= 1
        return value
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
        guard upstreamFinished, !completed, running == 0, ready.isEmpty else { return false }
        completed = true
        return true
    }

    /// Downstream cancelled: results still running are dropped when they land.
    mutating func cancel() {
        completed = true
        ready.removeAll()
    }
}
