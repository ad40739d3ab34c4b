import Dispatch
@preconcurrency import OpenCombine
import Locking

extension Publishers {
    /// A `DispatchTimer` publisher: a tick every `interval` on
    /// `queue`, from a dispatch timer that exists only while subscribed.
    /// A tick that fires while the subscriber has no demand is dropped, so
    /// a slow subscriber is never flooded.
    struct DispatchTimer: Publisher {
        typealias Output = DispatchTime
        typealias Failure = Never

        /// The time between ticks.
        let interval: DispatchTimeInterval
        /// The queue the ticks are delivered on.
        let queue: DispatchQueue

        /// A timer ticking every `interval` on `queue`, from its subscription on.
        init(interval: DispatchTimeInterval, queue: DispatchQueue) {
            self.interval = interval
            self.queue = queue
        }

        /// Starts a timer of its own for `subscriber`; cancelling stops it.
        func receive<S: Subscriber>(subscriber: S) where S.Input == DispatchTime, S.Failure == Never {
            let subscription = DispatchTimerSubscription(subscriber: subscriber, interval: interval, queue: queue)
            subscriber.receive(subscription: subscription)
        }
    }
}

private final class DispatchTimerSubscription<S: Subscriber>: Subscription where S.Input == DispatchTime {
    private struct State {
        var demand: Subscribers.Demand = .none
        /// The timer is made once, at the first demand.
        var started = false
        var source: DispatchSourceTimer?
        var subscriber: S?
    }

    private let state: Locked<State>
    private let interval: DispatchTimeInterval
    private let queue: DispatchQueue

    init(subscriber: S, interval: DispatchTimeInterval, queue: DispatchQueue) {
        state = Locked(State(subscriber: subscriber))
        self.interval = interval
        self.queue = queue
    }

    deinit {
        state.withLock { $0.source }?.cancel()
    }

    func request(_ demand: Subscribers.Demand) {
        let start = state.withLock { state -> Bool in
            guard state.subscriber != nil else { return false }
            state.demand += demand
            defer { state.started = true }
            return !state.started
        }
        guard start else { return }
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + interval, repeating: interval)
        source.setEventHandler { [weak self] in self?.fire() }
        let live = state.withLock { state -> Bool in
            guard state.subscriber != nil else { return false }
            state.source = source
            return true
        }
        // Cancelled while it was being made: it never fires.
        if !live { source.cancel() }
        source.resume()
    }

    private func fire() {
        let subscriber = state.withLock { state -> S? in
            guard state.demand > 0, let subscriber = state.subscriber else { return nil }
            state.demand -= 1
            return subscriber
        }
        guard let subscriber else { return }
        let more = subscriber.receive(.now())
        state.withLock { $0.demand += more }
    }

    func cancel() {
        let source = state.withLock { state -> DispatchSourceTimer? in
            state.subscriber = nil
            defer { state.source = nil }
            return state.source
        }
        source?.cancel()
    }
}
