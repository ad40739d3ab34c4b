@preconcurrency import OpenCombine
import Locking

/// Something that produces values one at a time, only when asked: a
/// directory walk, a list of paths read from a descriptor.
///
/// A source need not be Sendable, and most are not: `Publishers.Pull`
/// makes one for each subscription and only that subscription steps it.
/// The closure that makes it returns a `sending` source, so the compiler
/// proves that no one else holds it: a new source (or one that is itself
/// Sendable, as `SharedWalk` is, which the run steps again after the cap).
/// The subscription takes it out of its lock for the loop that emits and
/// puts it back when demand runs out, so one thread at a time steps it.
protocol PullSource {
    /// What the source hands out, one at a time.
    associatedtype Element
    /// The next value, or nil when there are no more. Called only while a
    /// subscriber has unmet demand, never from two threads at once.
    mutating func next() -> Element?
}

extension Publishers {
    /// A publisher that emits only what was requested: every value comes
    /// from one call of its source's `next()`, made while the subscriber has
    /// demand. Nothing is read ahead, and cancelling stops the source.
    struct Pull<Source: PullSource>: Publisher {
        typealias Output = Source.Element
        typealias Failure = Never

        private let makeSource: () -> sending Source

        /// `makeSource` runs once per subscription, when it first has demand;
        /// what it returns is that subscription's alone (see `PullSource`).
        init(_ makeSource: @escaping () -> sending Source) {
            self.makeSource = makeSource
        }

        /// Gives `subscriber` a subscription with a source of its own, stepped only on demand.
        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            let subscription = PullSubscription(makeSource: makeSource, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}

/// Demand is counted as in OpenCombine's `Publishers.Sequence`: the state
/// lives behind a lock, which is released before every call out to the
/// source or the subscriber. A `request` that arrives while values are being
/// emitted (from inside `receive`, or another thread) only adds demand; the
/// emitting loop takes it up.
private final class PullSubscription<Source: PullSource, Downstream: Subscriber>: Subscription,
    CustomStringConvertible
    where Downstream.Input == Source.Element, Downstream.Failure == Never {

    private enum State {
        case pending(makeSource: () -> sending Source)
        case idle(Source, Subscribers.Demand)
        /// The loop owns the source; demand that arrives meanwhile is added here.
        case emitting(Subscribers.Demand)
        case done
    }

    private let state: Locked<State>
    private let downstream: Downstream

    init(makeSource: @escaping () -> sending Source, downstream: Downstream) {
        self.state = Locked(.pending(makeSource: makeSource))
        self.downstream = downstream
    }

    var description: String { "Pull" }

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > 0, "demand must be positive")
        var source: Source
        var pending: Subscribers.Demand
        let start: (Source, Subscribers.Demand)? = state.withLock { state in
            switch state {
            case .pending(let make):
                state = .emitting(.none)
                return (make(), demand)
            case .idle(let source, let existing):
                state = .emitting(.none)
                return (source, existing + demand)
            case .emitting(let existing):
                state = .emitting(existing + demand)
                return nil
            case .done:
                return nil
            }
        }
        guard let start else { return }
        (source, pending) = start

        while true {
            while pending > 0 {
                // A cancel from inside `receive` (as `prefix` does) must stop the
                // source before it is asked for another value.
                if case .done = state.withLock({ $0 }) { return }
                guard let value = source.next() else {
                    let wasLive = state.withLock { state -> Bool in
                        if case .done = state { return false }
                        state = .done
                        return true
                    }
                    if wasLive { downstream.receive(completion: .finished) }
                    return
                }
                if case .done = state.withLock({ $0 }) { return }
                pending -= 1
                pending += downstream.receive(value)
            }
            // Out of demand: take what arrived meanwhile, or go idle.
            let more: Subscribers.Demand? = state.withLock { state in
                switch state {
                case .emitting(let added) where added > 0:
                    state = .emitting(.none)
                    return added
                case .emitting:
                    state = .idle(source, .none)
                    return nil
                default:
                    return nil  // cancelled meanwhile
                }
            }
            guard let more else { return }
            pending += more
        }
    }

    func cancel() {
        state.withLock { $0 = .done }
    }
}
