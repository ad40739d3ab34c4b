import Dispatch
import Locking
@preconcurrency import OpenCombine

extension Publisher where Self: SendableMetatype, Failure == Never, Output: Sendable {
    /// Transforms values on `workers`, at most `limits.jobs` at once, and
    /// emits the results in input order on `queue`, whatever order they
    /// finish in. Values are requested of upstream against downstream
    /// demand, plus a window ahead of it bounded by the bytes and the number
    /// of the results it holds (`limits`, each value's `cost`). With a
    /// `budget`, a value starts only when its running cost fits in it: heavy
    /// values first, then the oldest (see `OrderedWindow`).
    func orderedParallelMap<Result: Sendable>(
        limits: WindowLimits, budget: (any WorkBudget)? = nil, workers: DispatchQueue, queue: DispatchQueue,
        cost: @escaping @Sendable (Output) -> WorkCost = { _ in .free },
        _ transform: @escaping @Sendable (Output) -> Result
    ) -> Publishers.OrderedParallelMap<Self, Result> {
        Publishers.OrderedParallelMap(upstream: self, limits: limits, budget: budget, workers: workers, queue: queue,
                                      cost: cost, transform: transform)
    }

    /// At most `maxConcurrent` at once, and nothing ahead of demand.
    func orderedParallelMap<Result: Sendable>(
        maxConcurrent: Int, workers: DispatchQueue, queue: DispatchQueue,
        _ transform: @escaping @Sendable (Output) -> Result
    ) -> Publishers.OrderedParallelMap<Self, Result> {
        orderedParallelMap(limits: .demandOnly(jobs: maxConcurrent), workers: workers, queue: queue, transform)
    }
}

extension Publishers {
    /// The publisher of `orderedParallelMap`: `transform` runs on `workers`,
    /// at most `limits` at once and ahead, and its results are delivered on
    /// `queue` in the upstream's order.
    struct OrderedParallelMap<Upstream: Publisher & SendableMetatype, Output: Sendable>: Publisher
        where Upstream.Failure == Never, Upstream.Output: Sendable {
        typealias Failure = Never

        /// The publisher whose values are transformed.
        let upstream: Upstream
        /// How many run at once, and how much may be held ahead of demand.
        let limits: WindowLimits
        let budget: (any WorkBudget)?
        /// Where `transform` runs (concurrent).
        let workers: DispatchQueue
        /// Where results are delivered, in order (serial).
        let queue: DispatchQueue
        /// What one value's transform will hold, counted against `limits` and the budget.
        let cost: @Sendable (Upstream.Output) -> WorkCost
        /// The work done to each value.
        let transform: @Sendable (Upstream.Output) -> Output

        /// Subscribes `subscriber` to the ordered results; its demand bounds what starts.
        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.subscribe(Inner(downstream: AnySubscriber(subscriber), publisher: self))
        }
    }
}

extension Publishers.OrderedParallelMap {
    /// The shell around `OrderedWindow`: the machine's state behind a lock,
    /// every call out (upstream, downstream, workers) made after releasing it.
    /// Emissions, starts and requests happen on `queue` only, so downstream
    /// sees one thread and upstream is asked from one.
    ///
    /// Downstream is type-erased so that the work sent to other queues
    /// captures no generic subscriber type.
    private final class Inner: Subscriber, Subscription, CustomStringConvertible, Sendable {
        typealias Downstream = AnySubscriber<Output, Never>
        typealias Input = Upstream.Output
        typealias Failure = Never

        private struct State {
            var window: OrderedWindow<Input, Output>
            var upstream: Subscription?
            /// A drain is running on `queue`; what happens meanwhile is
            /// taken up by its loop (`again`).
            var draining = false
            var again = false
        }

        /// `Locked`, not `Mutex`: it holds upstream's subscription, and ThreadSanitizer must see its lock.
        private let state: Locked<State>
        /// Called on `queue` only (see `drain`), never from two threads.
        nonisolated(unsafe) private let downstream: Downstream
        private let workers: DispatchQueue
        private let queue: DispatchQueue
        private let budget: (any WorkBudget)?
        private let cost: @Sendable (Input) -> WorkCost
        private let transform: @Sendable (Input) -> Output

        init(downstream: Downstream, publisher: Publishers.OrderedParallelMap<Upstream, Output>) {
            let window = OrderedWindow<Input, Output>(limits: publisher.limits, memory: publisher.budget?.limit ?? .max)
            self.state = Locked(State(window: window))
            self.downstream = downstream
            self.workers = publisher.workers
            self.queue = publisher.queue
            self.budget = publisher.budget
            self.cost = publisher.cost
            self.transform = publisher.transform
        }

        var description: String { "OrderedParallelMap" }

        func receive(subscription: Subscription) {
            let accepted = state.withLock { state -> Bool in
                guard state.upstream == nil, !state.window.completed else { return false }
                state.upstream = subscription
                return true
            }
            guard accepted else { subscription.cancel(); return }
            // Memory released outside the operator may let a waiting value start.
            budget?.onRelease { [weak self] in self?.schedule() }
            downstream.receive(subscription: self)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let cost = cost(input)
            state.withLock { state in _ = state.window.received(input, cost: cost) }
            schedule()
            return .none  // more is asked for in `drain`, against downstream demand and the window
        }

        func receive(completion: Subscribers.Completion<Never>) {
            state.withLock { $0.window.finishUpstream() }
            schedule()
        }

        func request(_ demand: Subscribers.Demand) {
            state.withLock { $0.window.downstreamRequested(demand) }
            schedule()
        }

        func cancel() {
            let upstream = state.withLock { state -> Subscription? in
                state.window.cancel()
                defer { state.upstream = nil }
                return state.upstream
            }
            upstream?.cancel()
        }

        /// Runs `drain` on `queue`, or has the drain in progress loop once more.
        private func schedule() {
            let start = state.withLock { state -> Bool in
                if state.draining { state.again = true; return false }
                state.draining = true
                return true
            }
            if start { queue.async { [self] in drain() } }
        }

        /// On `queue`: emit what is ready and wanted, start what may start,
        /// finish if all is done, and top the window up from upstream; again
        /// while anything changed meanwhile (upstream answers a request on
        /// this thread, before `request` returns).
        private func drain() {
            dispatchPrecondition(condition: .onQueue(queue))
            while true {
                while let value = state.withLock({ $0.window.nextEmission() }) {
                    let more = downstream.receive(value)
                    state.withLock { $0.window.emitted(additional: more) }
                }
                while let next = state.withLock({ state in
                    state.window.nextStart(tryAcquire: { budget?.tryAcquire($0) ?? true })
                }) {
                    start(next.sequence, next.input, running: next.cost.running)
                }
                let (finish, ask, upstream) = state.withLock { state -> (Bool, Int, Subscription?) in
                    let finish = state.window.shouldComplete()
                    if finish { state.upstream = nil }
                    return (finish, state.window.upstreamRequest(), state.upstream)
                }
                if finish {
                    state.withLock { $0.draining = false }
                    downstream.receive(completion: .finished)
                    return
                }
                if ask > 0, let upstream {
                    upstream.request(.max(ask))
                    continue
                }
                let done = state.withLock { state -> Bool in
                    if state.again { state.again = false; return false }
                    state.draining = false
                    return true
                }
                if done { return }
            }
        }

        private func start(_ sequence: Int, _ input: Input, running: Int) {
            workers.async { [self] in
                let result = transform(input)
                state.withLock { $0.window.transformed(sequence, result) }
                budget?.release(running)  // wakes the drain through `onRelease`
                if budget == nil { schedule() }
            }
        }
    }
}
