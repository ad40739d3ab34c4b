import Dispatch
import Glibc
@preconcurrency import OpenCombine
import XCTest
@testable import CollageKit

/// The demand-driven scanner's publisher: `Publishers.Pull` emits only
/// what was asked for, one `next()` per value, and stops when cancelled.
/// (The walk itself: DirectoryWalkTests.)
final class PullPublisherTests: XCTestCase {
    func testNothingIsReadBeforeDemand() {
        let calls = Counter()
        var made = 0
        let publisher = Publishers.Pull { () -> CountingSource<ArraySource<Int>> in
            made += 1
            return CountingSource(base: ArraySource([1, 2, 3]), calls: calls)
        }
        let subscriber = RecordingSubscriber<Int>()
        publisher.subscribe(subscriber)
        XCTAssertEqual(made, 0, "the source is made on first demand")
        XCTAssertEqual(calls.value, 0)
        XCTAssertEqual(subscriber.values, [])
    }

    func testDemandOfOneYieldsExactlyOne() {
        let calls = Counter()
        let subscriber = RecordingSubscriber<Int>(initialDemand: .max(1))
        Publishers.Pull { CountingSource(base: ArraySource([10, 20, 30, 40]), calls: calls) }.subscribe(subscriber)
        XCTAssertEqual(subscriber.values, [10])
        XCTAssertEqual(calls.value, 1, "one next() for one value: nothing read ahead")

        subscriber.request(.max(2))
        XCTAssertEqual(subscriber.values, [10, 20, 30])
        XCTAssertEqual(calls.value, 3)
        XCTAssertEqual(subscriber.completions, 0)

        subscriber.request(.max(5))
        XCTAssertEqual(subscriber.values, [10, 20, 30, 40])
        XCTAssertEqual(calls.value, 5, "the fifth call found the end")
        XCTAssertEqual(subscriber.completions, 1)
        XCTAssertEqual(subscriber.overflows, 0, "never more values than requested")

        subscriber.request(.max(1))
        XCTAssertEqual(calls.value, 5, "nothing after completion")
        XCTAssertEqual(subscriber.completions, 1, "completes once")
    }

    func testDemandReturnedFromReceiveIsHonoured() {
        // Returns .max(1) for the first two values, then nothing.
        let calls = Counter()
        let subscriber = RecordingSubscriber<Int>(initialDemand: .max(1)) { subscriber, _ in
            subscriber.values.count < 3 ? .max(1) : .none
        }
        Publishers.Pull { CountingSource(base: ArraySource(Array(0..<10)), calls: calls) }.subscribe(subscriber)
        XCTAssertEqual(subscriber.values, [0, 1, 2])
        XCTAssertEqual(subscriber.demands, [.max(1), .max(1), .max(1)])
        XCTAssertEqual(calls.value, 3)
        XCTAssertEqual(subscriber.overflows, 0)
    }

    func testRequestFromInsideReceiveOnlyAddsDemand() {
        // Re-entrant request: values still arrive one by one, in order, none extra.
        let calls = Counter()
        let subscriber = RecordingSubscriber<Int>(initialDemand: .max(1)) { subscriber, value in
            if value < 4 { subscriber.request(.max(1)) }
            return .none
        }
        Publishers.Pull { CountingSource(base: ArraySource(Array(0..<10)), calls: calls) }.subscribe(subscriber)
        XCTAssertEqual(subscriber.values, [0, 1, 2, 3, 4])
        XCTAssertEqual(calls.value, 5)
        XCTAssertEqual(subscriber.overflows, 0)
    }

    func testCancelInsideReceiveStopsTheSourceAtOnce() {
        // Unlimited demand, cancelled on the second value (what prefix(2) does):
        // the source must not be asked for a third.
        let calls = Counter()
        let subscriber = RecordingSubscriber<Int>(initialDemand: .unlimited) { subscriber, _ in
            if subscriber.values.count == 2 { subscriber.cancel() }
            return .none
        }
        Publishers.Pull { CountingSource(base: ArraySource(Array(0..<10)), calls: calls) }.subscribe(subscriber)
        XCTAssertEqual(subscriber.values, [0, 1])
        XCTAssertEqual(calls.value, 2, "no next() after the cancel")
        XCTAssertEqual(subscriber.completions, 0, "a cancelled subscription does not complete")
    }

    func testPrefixReadsOneBeyondItsCountThenStops() {
        // OpenCombine's prefix(N) is output(in: 0..<N): it completes, and cancels
        // upstream, only when value N+1 arrives. So a source under prefix(3) is
        // read 4 times, and no more (before the cancel fix in Pull, 5 times).
        // A pipeline that must not look past its cap cannot rely on prefix alone.
        let calls = Counter()
        var values: [Int] = []
        var completions = 0
        let cancellable = Publishers.Pull { CountingSource(base: ArraySource(Array(0..<100)), calls: calls) }
            .prefix(3)
            .sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { values.append($0) })
        XCTAssertEqual(values, [0, 1, 2])
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(calls.value, 4, "three kept, one read to find the end of the prefix, none after the cancel")
        cancellable.cancel()
    }
}
