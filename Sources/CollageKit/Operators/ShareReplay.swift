@preconcurrency import OpenCombine
import Locking

extension Publisher {
    /// `shareReplay(capacity:)`: one subscription upstream,
    /// shared by every subscriber; a subscriber that arrives late first gets
    /// the last `capacity` values (and the completion, if it came), then the
    /// live ones. Each subscriber's demand is honoured separately: values it
    /// has not asked for yet wait in its own queue. Upstream is asked for
    /// everything, once, at the first subscriber, and is never cancelled by
    /// a subscriber's cancel: a subject upstream would drop what a slow
    /// subscriber could not take yet.
    func shareReplay(capacity: Int) -> Publishers.ShareReplay<Self> {
        Publishers.ShareReplay(upstream: self, capacity: capacity)
    }
}

extension Publishers {
    /// The publisher of `shareReplay(capacity:)`: one subscription upstream,
    /// shared by every subscriber, each replayed the last `capacity` values.
    final class ShareReplay<Upstream: Publisher>: Publisher {
        typealias Output = Upstream.Output
        typealias Failure = Upstream.Failure

        private struct State {
            var replay: [Output] = []
            var completion: Subscribers.Completion<Failure>?
            var subscriptions: [ReplaySubscription<Output, Failure>] = []
            var connected = false
        }

        private let upstream: Upstream
        private let capacity: Int
        private let state = Locked(State())

        init(upstream: Upstream, capacity: Int) {
            precondition(capacity >= 0)
            self.upstream = upstream
            self.capacity = capacity
        }

        /// Replays what is kept to `subscriber`, then shares what comes next.
        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = ReplaySubscription<Output, Failure>(downstream: AnySubscriber(subscriber)) { [weak self] in
                self?.remove($0)
            }
            // The replay is queued under the lock live values are relayed
            // under, so that a value or the completion that arrives meanwhile
            // (on another thread, or from inside `receive(subscription:)`)
            // comes after it; nothing is delivered before the subscriber has
            // its subscription.
            let connect = state.withLock { state in
                subscription.queue(state.replay, completion: state.completion)
                if state.completion == nil { state.subscriptions.append(subscription) }
                defer { state.connected = true }
                return !state.connected
            }
            subscriber.receive(subscription: subscription)
            subscription.start()
            if connect {
                upstream.subscribe(AnySubscriber<Output, Failure>(
                    receiveSubscription: { $0.request(.unlimited) },
                    receiveValue: { [weak self] value in self?.relay(value); return .none },
                    receiveCompletion: { [weak self] completion in self?.relay(completion) }))
            }
        }

        private func relay(_ value: Output) {
            let subscriptions = state.withLock { state -> [ReplaySubscription<Output, Failure>] in
                state.replay.append(value)
                if state.replay.count > capacity { state.replay.removeFirst(state.replay.count - capacity) }
                return state.subscriptions
            }
            for subscription in subscriptions { subscription.enqueue([value], completion: nil) }
        }

        private func relay(_ completion: Subscribers.Completion<Failure>) {
            let subscriptions = state.withLock { state -> [ReplaySubscription<Output, Failure>] in
                state.completion = completion
                defer { state.subscriptions = [] }
                return state.subscriptions
            }
            for subscription in subscriptions { subscription.enqueue([], completion: completion) }
        }

        private func remove(_ subscription: ReplaySubscription<Output, Failure>) {
            state.withLock { state in state.subscriptions.removeAll { $0 === subscription } }
        }
    }
}

/// Shared across threads when its upstream is: its own state is behind a lock.
extension Publishers.ShareReplay: Sendable where Upstream: Sendable {}

/// One subscriber's view of a shared replay: its own queue and demand.
private final class ReplaySubscription<Output, Failure: Error>: Subscription {
    private struct State {
        var queue: [Output] = []
        var completion: Subscribers.Completion<Failure>?
        var demand: Subscribers.Demand = .none
        var delivering = false
        /// The subscriber has its subscription: values may go to it.
        var started = false
        var cancelled = false
    }

    private enum Step { case value(Output), completion(Subscribers.Completion<Failure>), stop }

    private let state = Locked(State())
    private let downstream: AnySubscriber<Output, Failure>
    private let onCancel: (ReplaySubscription) -> Void

    init(downstream: AnySubscriber<Output, Failure>, onCancel: @escaping (ReplaySubscription) -> Void) {
        self.downstream = downstream
        self.onCancel = onCancel
    }

    /// Queues `values` (and the completion) without delivering them.
    func queue(_ values: [Output], completion: Subscribers.Completion<Failure>?) {
        state.withLock { state in
            guard !state.cancelled else { return }
            state.queue.append(contentsOf: values)
            if let completion { state.completion = completion }
        }
    }

    func enqueue(_ values: [Output], completion: Subscribers.Completion<Failure>?) {
        queue(values, completion: completion)
        deliver()
    }

    /// The subscriber has its subscription: deliver what it asked for.
    func start() {
        state.withLock { $0.started = true }
        deliver()
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.demand += demand }
        deliver()
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.queue = []
        }
        onCancel(self)
    }

    /// Sends what is queued and wanted; one thread at a time, lock released
    /// before each call out.
    private func deliver() {
        let owns = state.withLock { state -> Bool in
            if state.delivering || state.cancelled || !state.started { return false }
            state.delivering = true
            return true
        }
        guard owns else { return }
        while true {
            let step = state.withLock { state -> Step in
                if state.cancelled { state.delivering = false; return .stop }
                if state.demand > 0, !state.queue.isEmpty {
                    state.demand -= 1
                    return .value(state.queue.removeFirst())
                }
                if state.queue.isEmpty, let completion = state.completion {
                    state.cancelled = true
                    state.delivering = false
                    return .completion(completion)
                }
                state.delivering = false
                return .stop
            }
            switch step {
            case .value(let value):
                let more = downstream.receive(value)
                state.withLock { $0.demand += more }
            case .completion(let completion):
                downstream.receive(completion: completion)
                return
            case .stop:
                return
            }
        }
    }
}
