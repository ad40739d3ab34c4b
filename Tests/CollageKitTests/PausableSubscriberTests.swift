@preconcurrency import OpenCombine
import XCTest
@testable import CollageKit

/// The pausable sink: one value at a time, pausing when
/// `receiveValue` says so, and `resume()` asking for exactly one more.
final class PausableSubscriberTests: XCTestCase {
    private func make(_ wantsMore: @escaping (Int) -> Bool = { _ in true })
        -> (PausableSubscriber<Int, Never>, Recorder) {
        let recorder = Recorder()
        let subscriber = PausableSubscriber<Int, Never>(
            receiveValue: { value in recorder.values.append(value); return wantsMore(value) },
            receiveCompletion: { _ in recorder.completions += 1 })
        return (subscriber, recorder)
    }

    final class Recorder {
        var values: [Int] = []
        var completions = 0
    }

    func testAsksForExactlyOneAtSubscription() {
        let (subscriber, _) = make()
        let subscription = ManualSubscription()
        subscriber.receive(subscription: subscription)
        XCTAssertEqual(subscription.requests, [.max(1)])
        XCTAssertFalse(subscriber.isPaused)
    }

    func testAsksForOneMoreWhileItWantsMore() {
        let (subscriber, recorder) = make { _ in true }
        let subscription = ManualSubscription()
        subscriber.receive(subscription: subscription)
        XCTAssertEqual(subscriber.receive(1), .max(1))
        XCTAssertEqual(subscriber.receive(2), .max(1))
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(subscription.requests, [.max(1)], "more demand goes back through receive's result")
    }

    func testPausesWhenReceiveValueReturnsFalseAndResumeAsksForExactlyOne() {
        let (subscriber, recorder) = make { $0 != 2 }
        let subscription = ManualSubscription()
        subscriber.receive(subscription: subscription)
        XCTAssertEqual(subscriber.receive(1), .max(1))
        XCTAssertEqual(subscriber.receive(2), .none, "paused: no more demand")
        XCTAssertTrue(subscriber.isPaused)
        XCTAssertEqual(subscription.requests, [.max(1)])

        subscriber.resume()
        XCTAssertFalse(subscriber.isPaused)
        XCTAssertEqual(subscription.requests, [.max(1), .max(1)], "resume asks for exactly one")
        subscriber.resume()
        XCTAssertEqual(subscription.requests, [.max(1), .max(1)], "resume while running asks for nothing")

        XCTAssertEqual(subscriber.receive(3), .max(1))
        XCTAssertEqual(recorder.values, [1, 2, 3])
    }

    func testCompletionOnceAndCancel() {
        let (subscriber, recorder) = make { _ in false }
        let subscription = ManualSubscription()
        subscriber.receive(subscription: subscription)
        _ = subscriber.receive(1)
        subscriber.cancel()
        XCTAssertEqual(subscription.cancels, 1)
        subscriber.resume()
        XCTAssertEqual(subscription.requests, [.max(1)], "no demand after cancel")
        subscriber.receive(completion: .finished)
        subscriber.receive(completion: .finished)
        XCTAssertLessThanOrEqual(recorder.completions, 1)

        let (other, otherRecorder) = make()
        other.receive(subscription: ManualSubscription())
        other.receive(completion: .finished)
        other.receive(completion: .finished)
        XCTAssertEqual(otherRecorder.completions, 1, "completion is delivered once")
    }

    func testASecondSubscriptionIsCancelled() {
        let (subscriber, _) = make()
        let first = ManualSubscription(), second = ManualSubscription()
        subscriber.receive(subscription: first)
        subscriber.receive(subscription: second)
        XCTAssertEqual(second.cancels, 1)
        XCTAssertEqual(second.requests, [])
        XCTAssertEqual(first.cancels, 0)
    }

    func testBackpressureReachesTheSource() {
        // A pull source under a pausable sink is read one value per resume.
        let calls = Counter()
        var values: [Int] = []
        var completed = false
        let subscriber = Publishers.Pull { CountingSource(base: ArraySource([1, 2, 3]), calls: calls) }
            .pausableSink(receiveCompletion: { _ in completed = true },
                          receiveValue: { values.append($0); return false })
        XCTAssertEqual(values, [1])
        XCTAssertEqual(calls.value, 1)
        XCTAssertTrue(subscriber.isPaused)
        subscriber.resume()
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(calls.value, 2)
        subscriber.resume()
        XCTAssertEqual(values, [1, 2, 3])
        XCTAssertEqual(calls.value, 3, "one resume, one read")
        XCTAssertFalse(completed)
        subscriber.resume()
        XCTAssertTrue(completed)
        XCTAssertEqual(calls.value, 4)
    }
}
