import Dispatch
import Locking
@preconcurrency import OpenCombine
@testable import CollageKit

// Subscribers, subscriptions and pull sources that record what they see,
// and a log of the events a run reports.

/// A subscriber that records every demand it makes (the first request,
/// what each `receive` returns, and later `request` calls), every value,
/// and every completion. `onValue` decides the demand returned from each
/// `receive` and may cancel or request from inside it.
final class RecordingSubscriber<Input: Sendable>: Subscriber, Cancellable, Sendable {
    typealias Failure = Never

    private struct Record {
        var subscription: Subscription?
        var values: [Input] = []
        var demands: [Subscribers.Demand] = []
        var completions = 0
        var overflows = 0
    }
    private let record = Locked(Record())
    private let initialDemand: Subscribers.Demand
    private let onValue: @Sendable (RecordingSubscriber, Input) -> Subscribers.Demand
    /// Signalled once per value received, and once on completion (tests wait on them).
    let valueSignal = DispatchSemaphore(value: 0)
    let completionSignal = DispatchSemaphore(value: 0)

    init(initialDemand: Subscribers.Demand = .none,
         onValue: @escaping @Sendable (RecordingSubscriber, Input) -> Subscribers.Demand = { _, _ in .none }) {
        self.initialDemand = initialDemand
        self.onValue = onValue
    }

    var values: [Input] { record.withLock { $0.values } }
    var demands: [Subscribers.Demand] { record.withLock { $0.demands } }
    var completions: Int { record.withLock { $0.completions } }
    /// Times a value arrived beyond the total demand made so far.
    var overflows: Int { record.withLock { $0.overflows } }
    var totalDemand: Subscribers.Demand { record.withLock { $0.demands.reduce(.none, +) } }

    func receive(subscription: Subscription) {
        record.withLock { $0.subscription = subscription }
        if initialDemand > 0 { request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        record.withLock { record in
            record.values.append(input)
            if record.demands.reduce(Subscribers.Demand.none, +) < .max(record.values.count) { record.overflows += 1 }
        }
        valueSignal.signal()
        let more = onValue(self, input)
        if more > 0 { record.withLock { $0.demands.append(more) } }
        return more
    }

    func receive(completion: Subscribers.Completion<Never>) {
        record.withLock { $0.completions += 1 }
        completionSignal.signal()
    }

    /// Asks for more, recording it.
    func request(_ demand: Subscribers.Demand) {
        let subscription = record.withLock { record -> Subscription? in
            record.demands.append(demand)
            return record.subscription
        }
        subscription?.request(demand)
    }

    func cancel() {
        let subscription = record.withLock { $0.subscription }
        subscription?.cancel()
    }
}

/// Counts calls across copies of a source (sources are values).
final class Counter: Sendable {
    private let count = Locked(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// Wraps a pull source and counts its `next()` calls: what the source did,
/// not what the subscriber saw.
struct CountingSource<Base: PullSource>: PullSource {
    var base: Base
    let calls: Counter

    mutating func next() -> Base.Element? {
        calls.increment()
        return base.next()
    }
}

/// A pull source over an array.
struct ArraySource<Element>: PullSource {
    var elements: [Element]
    var index = 0
    init(_ elements: [Element]) { self.elements = elements }
    mutating func next() -> Element? {
        guard index < elements.count else { return nil }
        defer { index += 1 }
        return elements[index]
    }
}

/// A subscription the test drives by hand; it records what is asked of it.
final class ManualSubscription: Subscription, Sendable {
    private let asked = Locked((requests: [Subscribers.Demand](), cancels: 0))
    var requests: [Subscribers.Demand] { asked.withLock { $0.requests } }
    var cancels: Int { asked.withLock { $0.cancels } }
    func request(_ demand: Subscribers.Demand) { asked.withLock { $0.requests.append(demand) } }
    func cancel() { asked.withLock { $0.cancels += 1 } }
}

/// Collects what a `report` closure hears.
final class EventLog: Sendable {
    private let recorded = Locked<[PipelineEvent]>([])
    var events: [PipelineEvent] { recorded.withLock { $0 } }
    func record(_ event: PipelineEvent) { recorded.withLock { $0.append(event) } }

    /// The (path, error) of each `failed` event.
    var failures: [(PathName, String)] {
        events.compactMap { if case .failed(let path, let error) = $0 { return (path, error) } else { return nil } }
    }
}

/// A publisher the test drives by hand: each subscriber gets a
/// `ManualSubscription`, which records the demand asked of it and its
/// cancels; `send` hands a value to every subscriber and returns the demand
/// each one returned. Between them, every demand an operator makes upstream.
final class ManualPublisher<Output>: Publisher, Sendable {  // its state is a `Locked`
    typealias Failure = Never

    private let state = Locked((subscribers: [AnySubscriber<Output, Never>](), subscriptions: [ManualSubscription]()))

    var subscriptions: [ManualSubscription] { state.withLock { $0.subscriptions } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        let subscription = ManualSubscription()
        state.withLock { state in
            state.subscribers.append(AnySubscriber(subscriber))
            state.subscriptions.append(subscription)
        }
        subscriber.receive(subscription: subscription)
    }

    /// What each subscriber's `receive` returned.
    @discardableResult
    func send(_ value: Output) -> [Subscribers.Demand] {
        state.withLock { $0.subscribers }.map { $0.receive(value) }
    }

    func send(completion: Subscribers.Completion<Never>) {
        for subscriber in state.withLock({ $0.subscribers }) { subscriber.receive(completion: completion) }
    }
}
