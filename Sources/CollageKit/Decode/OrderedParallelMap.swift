import Dispatch
@preconcurrency import OpenCombine
import Synchronization

extension Publisher where Self: SendableMetatype, Failure == Never, Output: Sendable {
    /// Transforms values on `workers`, at most `maxConcurrent` at once, and
    /// emits the results in input order on `queue`, whatever order they
    /// finish in. Values are requested of upstream against downstream
    /// demand plus at most `lookahead` more (the window), so what is in
    /// flight is bounded by both.
    public func orderedParallelMap<Result: Sendable>(
        maxConcurrent: Int, lookahead: Int = 0, workers: DispatchQueue, queue: DispatchQueue,
        _ transform: @escaping @Sendable (Output) -> Result
    ) -> Publishers.OrderedParallelMap<Self, Result> {
        Publishers.OrderedParallelMap(upstream: self, maxConcurrent: maxConcurrent, lookahead: lookahead,
                                      workers: workers, queue: queue, transform: transform)
    }
}

extension Publishers {
    public struct OrderedParallelMap<Upstream: Publisher & SendableMetatype, Output: Sendable>: Publisher
        where Upstream.Failure == Never, Upstream.Output: Sendable {
        public typealias Failure = Never

        public let upstream: Upstream
        public let maxConcurrent: Int
        public let lookahead: Int
        public let workers: DispatchQueue
        public let queue: DispatchQueue
        public let transform: @Sendable (Upstream.Output) -> Output

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.subscribe(Inner(downstream: AnySubscriber(subscriber), publisher: self))
        }
    }
}

extension Publishers.OrderedParallelMap {
    /// The shell around `OrderedWindow`: the machine's state behind a lock,
    /// every call out (upstream, downstream, workers) made after releasing it.
    /// Emissions happen on `queue` only, so downstream sees one thread.
    ///
    /// Downstream is type-erased so that the work sent to other queues
    /// captures no generic subscriber type.
    private final class Inner: Subscriber, Subscription, CustomStringConvertible, Sendable {
        typealias Downstream = AnySubscriber<Output, Never>
        typealias Input = Upstream.Output
        typealias Failure = Never

        private struct State {
            var window: OrderedWindow<Output>
            var upstream: Subscription?
            var emitting = false
        }

        private let state: Mutex<State>
        /// Called on `queue` only (see `drain`), never from two threads.
        nonisolated(unsafe) private let downstream: Downstream
        private let workers: DispatchQueue
        private let queue: DispatchQueue
        private let transform: @Sendable (Upstream.Output) -> Output

        init(downstream: Downstream, publisher: Publishers.OrderedParallelMap<Upstream, Output>) {
            self.state = Mutex(State(window: OrderedWindow(limit: publisher.maxConcurrent, lookahead: publisher.lookahead)))
            self.downstream = downstream
            self.workers = publisher.workers
            self.queue = publisher.queue
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
            downstream.receive(subscription: self)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let sequence: Int? = state.withLock { state in
                state.window.completed ? nil : state.window.received()
            }
            guard let sequence else { return .none }
            workers.async { [self] in
                let result = transform(input)
                queue.async { [self] in
                    state.withLock { $0.window.transformed(sequence, result) }
                    drain()
                }
            }
            return .none  // more is asked for in `drain`, against downstream demand
        }

        func receive(completion: Subscribers.Completion<Never>) {
            state.withLock { $0.window.finishUpstream() }
            queue.async { [self] in drain() }
        }

        func request(_ demand: Subscribers.Demand) {
            state.withLock { $0.window.downstreamRequested(demand) }
            queue.async { [self] in drain() }
        }

        func cancel() {
            let upstream = state.withLock { state -> Subscription? in
                state.window.cancel()
                defer { state.upstream = nil }
                return state.upstream
            }
            upstream?.cancel()
        }

        /// On `queue`: emit what is ready and wanted, finish if all is done,
        /// and top the window up from upstream.
        private func drain() {
            dispatchPrecondition(condition: .onQueue(queue))
            let reentrant = state.withLock { state -> Bool in
                if state.emitting { return true }
                state.emitting = true
                return false
            }
            if reentrant { return }
            while let value = state.withLock({ $0.window.nextEmission() }) {
                let more = downstream.receive(value)
                state.withLock { $0.window.emitted(additional: more) }
            }
            let (finish, ask, upstream) = state.withLock { state -> (Bool, Int, Subscription?) in
                state.emitting = false
                let finish = state.window.shouldComplete()
                if finish { state.upstream = nil }
                return (finish, state.window.upstreamRequest(), state.upstream)
            }
            if finish {
                downstream.receive(completion: .finished)
            } else if ask > 0, let upstream {
                upstream.request(.max(ask))
            }
        }
    }
}
