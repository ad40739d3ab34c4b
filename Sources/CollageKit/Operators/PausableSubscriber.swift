@preconcurrency import OpenCombine
import Locking

extension Publisher {
    /// A pausable sink: `receiveValue` returns whether it wants
    /// another value now; if it returns false the subscriber pauses, asks
    /// for nothing more, until `resume()` asks for one.
    func pausableSink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Bool
    ) -> PausableSubscriber<Output, Failure> {
        let subscriber = PausableSubscriber(receiveValue: receiveValue, receiveCompletion: receiveCompletion)
        subscribe(subscriber)
        return subscriber
    }
}

/// What the owner of a pausable sink can do with it, whatever it receives.
protocol Pausable: Cancellable {
    /// Asks for one more value after a pause; nothing if not paused.
    func resume()
}

/// A subscriber that applies backpressure one value at a time: it asks for
/// one value, and after each one either asks for the next or pauses.
final class PausableSubscriber<Input, Failure: Error>: Subscriber, Pausable {
    /// This subscriber's identity for OpenCombine.
    let combineIdentifier = CombineIdentifier()

    private enum State {
        case awaitingSubscription
        case running(Subscription)
        case paused(Subscription)
        case finished
    }

    private let state = Locked<State>(.awaitingSubscription)
    private let receiveValue: (Input) -> Bool
    private let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

    /// `receiveValue` returns whether it wants another value at once (else
    /// the subscriber pauses until `resume()`); `receiveCompletion` hears the end.
    init(receiveValue: @escaping (Input) -> Bool,
                receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }

    /// Whether it is waiting for `resume()` before asking for more.
    var isPaused: Bool {
        state.withLock { if case .paused = $0 { return true } else { return false } }
    }

    /// Keeps `subscription` and asks it for one value.
    func receive(subscription: Subscription) {
        let accepted = state.withLock { state -> Bool in
            guard case .awaitingSubscription = state else { return false }
            state = .running(subscription)
            return true
        }
        guard accepted else { subscription.cancel(); return }
        subscription.request(.max(1))
    }

    /// Hands `value` on; asks for one more unless the handler paused.
    func receive(_ value: Input) -> Subscribers.Demand {
        // A value that was already under way when the subscriber was
        // cancelled (or finished) is not handed on.
        let live = state.withLock { state -> Bool in
            switch state {
            case .running, .paused: return true
            default: return false
            }
        }
        guard live else { return .none }
        let wantsMore = receiveValue(value)
        return state.withLock { state in
            guard case .running(let subscription) = state else { return .none }
            if wantsMore { return .max(1) }
            state = .paused(subscription)
            return .none
        }
    }

    /// Hands the end on, once.
    func receive(completion: Subscribers.Completion<Failure>) {
        let live = state.withLock { state -> Bool in
            if case .finished = state { return false }
            state = .finished
            return true
        }
        if live { receiveCompletion(completion) }
    }

    /// Asks for one more value, if paused.
    func resume() {
        let subscription = state.withLock { state -> Subscription? in
            guard case .paused(let subscription) = state else { return nil }
            state = .running(subscription)
            return subscription
        }
        subscription?.request(.max(1))
    }

    /// Cancels the subscription; nothing more is received.
    func cancel() {
        let subscription = state.withLock { state -> Subscription? in
            defer { state = .finished }
            switch state {
            case .running(let subscription), .paused(let subscription): return subscription
            default: return nil
            }
        }
        subscription?.cancel()
    }
}
