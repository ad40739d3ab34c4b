import Dispatch
@preconcurrency import OpenCombine
import XCTest
@testable import CollageKit

/// shareReplay(capacity:): one subscription upstream, asked for everything
/// once, whatever its subscribers ask for (a subject upstream would drop
/// what it could not deliver); each subscriber gets no more than its own
/// demand, the rest waiting in its own queue; a late subscriber gets the
/// last `capacity` values, then the live ones, then the completion.
final class ShareReplayTests: XCTestCase {
    func testOneSubscriptionUpstreamAskedForEverythingOnce() {
        let upstream = ManualPublisher<Int>()
        let shared = upstream.shareReplay(capacity: 2)
        XCTAssertEqual(upstream.subscriptions.count, 0, "nothing upstream before a subscriber")

        let first = RecordingSubscriber<Int>()
        shared.subscribe(first)
        XCTAssertEqual(upstream.subscriptions.count, 1, "connected at the first subscriber, before its demand")
        let second = RecordingSubscriber<Int>(initialDemand: .max(1))
        shared.subscribe(second)
        XCTAssertEqual(upstream.subscriptions.count, 1, "one subscription upstream, shared")
        XCTAssertEqual(upstream.subscriptions[0].requests, [.unlimited])

        XCTAssertEqual(upstream.send(1), [.none], "no more demand returned: everything was asked for")
        XCTAssertEqual(first.values, [], "no demand, no value")
        XCTAssertEqual(second.values, [1])
        XCTAssertEqual(upstream.subscriptions[0].requests, [.unlimited], "a subscriber's demand never reaches upstream")
    }

    func testEachSubscriberGetsNoMoreThanItsDemandTheRestWaits() {
        let upstream = ManualPublisher<Int>()
        let shared = upstream.shareReplay(capacity: 0)
        let fast = RecordingSubscriber<Int>(initialDemand: .unlimited)
        let slow = RecordingSubscriber<Int>(initialDemand: .max(1))
        shared.subscribe(fast)
        shared.subscribe(slow)
        for value in 1...3 { upstream.send(value) }
        upstream.send(completion: .finished)
        XCTAssertEqual(fast.values, [1, 2, 3])
        XCTAssertEqual(fast.completions, 1)
        XCTAssertEqual(slow.values, [1], "the slow one is not flooded")
        XCTAssertEqual(slow.completions, 0, "its completion waits behind its queued values")

        slow.request(.max(1))
        XCTAssertEqual(slow.values, [1, 2])
        XCTAssertEqual(slow.completions, 0)
        slow.request(.max(5))
        XCTAssertEqual(slow.values, [1, 2, 3], "from its queue, in order")
        XCTAssertEqual(slow.completions, 1, "then the completion")
        XCTAssertEqual(slow.demands, [.max(1), .max(1), .max(5)])
        XCTAssertEqual(slow.overflows, 0)
        XCTAssertEqual(upstream.subscriptions.map(\.requests), [[.unlimited]])
    }

    func testDemandReturnedFromReceiveIsHonoured() {
        let upstream = ManualPublisher<Int>()
        let shared = upstream.shareReplay(capacity: 4)
        let subscriber = RecordingSubscriber<Int>(initialDemand: .max(1)) { subscriber, _ in
            subscriber.values.count < 3 ? .max(1) : .none
        }
        shared.subscribe(subscriber)
        for value in 1...5 { upstream.send(value) }
        XCTAssertEqual(subscriber.values, [1, 2, 3])
        XCTAssertEqual(subscriber.demands, [.max(1), .max(1), .max(1)])
        XCTAssertEqual(subscriber.overflows, 0)
    }

    func testALateSubscriberGetsTheLastCapacityValuesThenLiveOnes() {
        let upstream = ManualPublisher<Int>()
        let shared = upstream.shareReplay(capacity: 2)
        let early = RecordingSubscriber<Int>(initialDemand: .unlimited)
        shared.subscribe(early)
        for value in 1...3 { upstream.send(value) }

        let late = RecordingSubscriber<Int>(initialDemand: .unlimited)
        shared.subscribe(late)
        XCTAssertEqual(late.values, [2, 3], "the last two, oldest first")
        upstream.send(4)
        XCTAssertEqual(early.values, [1, 2, 3, 4])
        XCTAssertEqual(late.values, [2, 3, 4])
        XCTAssertEqual(upstream.subscriptions.count, 1, "the late subscriber does not subscribe again")
    }

    func testTheCompletionIsReplayedAfterTheValues() {
        let upstream = ManualPublisher<Int>()
        let shared = upstream.shareReplay(capacity: 2)
        shared.subscribe(RecordingSubscriber<Int>(initialDemand: .unlimited))
        for value in 1...3 { upstream.send(value) }
        upstream.send(completion: .finished)

        let late = RecordingSubscriber<Int>()
        shared.subscribe(late)
        XCTAssertEqual(late.values, [])
        XCTAssertEqual(late.completions, 0, "the replayed values come first, on demand")
        late.request(.max(1))
        XCTAssertEqual(late.values, [2])
        XCTAssertEqual(late.completions, 0)
        late.request(.max(1))
        XCTAssertEqual(late.values, [2, 3])
        XCTAssertEqual(late.completions, 1)
        XCTAssertEqual(upstream.subscriptions.count, 1)

        let nothingKept = ManualPublisher<Int>()
        let unreplayed = nothingKept.shareReplay(capacity: 0)
        unreplayed.subscribe(RecordingSubscriber<Int>(initialDemand: .unlimited))
        nothingKept.send(1)
        nothingKept.send(completion: .finished)
        let after = RecordingSubscriber<Int>()
        unreplayed.subscribe(after)
        XCTAssertEqual(after.values, [])
        XCTAssertEqual(after.completions, 1, "nothing to replay: the completion needs no demand")
    }

    func testCancellingOneSubscriberLeavesTheOthersAndUpstream() {
        let upstream = ManualPublisher<Int>()
        let shared = upstream.shareReplay(capacity: 1)
        let leaving = RecordingSubscriber<Int>(initialDemand: .unlimited)
        let staying = RecordingSubscriber<Int>(initialDemand: .unlimited)
        shared.subscribe(leaving)
        shared.subscribe(staying)
        upstream.send(1)
        leaving.cancel()
        XCTAssertEqual(upstream.subscriptions[0].cancels, 0, "upstream is not cancelled for the others")
        upstream.send(2)
        upstream.send(completion: .finished)
        XCTAssertEqual(leaving.values, [1])
        XCTAssertEqual(leaving.completions, 0, "nothing after its cancel")
        XCTAssertEqual(staying.values, [1, 2])
        XCTAssertEqual(staying.completions, 1)
        XCTAssertEqual(upstream.subscriptions.map(\.requests), [[.unlimited]])
    }

    func testALiveValueThatArrivesWhileALateSubscriberIsSubscribedComesAfterItsReplay() {
        let upstream = ManualPublisher<Int>()
        let shared = upstream.shareReplay(capacity: 2)
        shared.subscribe(RecordingSubscriber<Int>(initialDemand: .unlimited))
        for value in 1...3 { upstream.send(value) }
        var seen: [Int] = []
        shared.subscribe(AnySubscriber<Int, Never>(receiveSubscription: { subscription in
            upstream.send(4)  // live, before this subscriber has asked for anything
            subscription.request(.unlimited)
        }, receiveValue: { seen.append($0); return .none }, receiveCompletion: { _ in }))
        XCTAssertEqual(seen, [2, 3, 4], "the replay, then the live value")
    }

    func testACompletionThatArrivesWhileALateSubscriberIsSubscribedComesAfterItsReplay() {
        let upstream = ManualPublisher<Int>()
        let shared = upstream.shareReplay(capacity: 2)
        shared.subscribe(RecordingSubscriber<Int>(initialDemand: .unlimited))
        for value in 1...3 { upstream.send(value) }
        var events: [String] = []
        shared.subscribe(AnySubscriber<Int, Never>(receiveSubscription: { subscription in
            events.append("subscribed")
            upstream.send(completion: .finished)
            subscription.request(.unlimited)
        }, receiveValue: { events.append("\($0)"); return .none }, receiveCompletion: { _ in events.append("finished") }))
        XCTAssertEqual(events, ["subscribed", "2", "3", "finished"], "the replay is not lost to the completion")
    }

    func testALateSubscriberSeesAnUnbrokenRunWhileValuesArriveOnAnotherThread() {
        // Subscribers join while another thread sends: each must see a run of
        // consecutive values (its replay, then the live ones, no value twice,
        // none skipped, none out of order), then the completion.
        for _ in 0..<20 {
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.shareReplay(capacity: 8)
            let first = RecordingSubscriber<Int>(initialDemand: .unlimited)
            shared.subscribe(first)
            let count = 2_000
            let sender = DispatchQueue(label: "test.sender")
            sender.async { for value in 0..<count { subject.send(value) }; subject.send(completion: .finished) }
            var late: [RecordingSubscriber<Int>] = []
            for _ in 0..<10 {
                let subscriber = RecordingSubscriber<Int>(initialDemand: .unlimited)
                shared.subscribe(subscriber)
                late.append(subscriber)
            }
            sender.sync {}
            for subscriber in [first] + late {
                let values = subscriber.values
                XCTAssertEqual(subscriber.completions, 1)
                XCTAssertEqual(values.last, count - 1)
                XCTAssertEqual(values, Array((values.first ?? 0)..<count), "an unbroken run")
            }
        }
    }
}
