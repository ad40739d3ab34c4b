import Dispatch
@preconcurrency import OpenCombine
import XCTest
@testable import CollageKit

/// orderedParallelMap's demand upstream, request by request, against a
/// publisher the test drives: what downstream asked for, `jobs` under
/// unlimited demand, one value at a time ahead of demand within the
/// window, and a cancel passed on once. Transforms are held on gates, so
/// the test knows what runs. (Order and concurrency: OrderedParallelMapTests.)
final class OrderedParallelMapDemandTests: XCTestCase {
    private let workers = DispatchQueue(label: "test.workers", attributes: .concurrent)
    private let queue = DispatchQueue(label: "test.emit")

    private func waitValues(_ subscriber: RecordingSubscriber<Int>, _ count: Int,
                            file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0..<count {
            XCTAssertEqual(subscriber.valueSignal.wait(timeout: .now() + 30), .success, "a value arrived",
                           file: file, line: line)
        }
    }

    func testUnlimitedDemandAsksForJobsThenOneAsEachFinishes() {
        let gates = OrderedParallelMapTests.Gates(3)
        let upstream = ManualPublisher<Int>()
        let subscriber = RecordingSubscriber<Int>()
        upstream.orderedParallelMap(maxConcurrent: 2, workers: workers, queue: queue) { gates.transform($0) }
            .subscribe(subscriber)
        queue.sync {}
        XCTAssertEqual(upstream.subscriptions.map(\.requests), [[]], "nothing asked before downstream asks")

        subscriber.request(.unlimited)
        queue.sync {}
        let requests = { upstream.subscriptions[0].requests }
        XCTAssertEqual(requests(), [.max(2)], "unlimited downstream: as many as run at once")
        XCTAssertEqual(upstream.send(0), [.none], "more is asked in its own request, never from receive")
        XCTAssertEqual(upstream.send(1), [.none])
        gates.waitStarted([0, 1])
        queue.sync {}
        XCTAssertEqual(requests(), [.max(2)], "two running: nothing more")

        gates.open(0)
        waitValues(subscriber, 1)
        queue.sync {}
        XCTAssertEqual(requests(), [.max(2), .max(1)], "one finished: one more")
        upstream.send(2)
        gates.waitStarted([2])
        upstream.send(completion: .finished)
        gates.open(2)
        gates.open(1)
        XCTAssertEqual(subscriber.completionSignal.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(subscriber.values, [0, 10, 20])
        XCTAssertEqual(requests(), [.max(2), .max(1)])
        XCTAssertEqual(subscriber.demands, [.unlimited])
        XCTAssertEqual(subscriber.completions, 1)
    }

    func testFiniteDemandIsPassedOnAndOneValueIsAskedAheadWithinTheWindow() {
        let gates = OrderedParallelMapTests.Gates(2)
        let upstream = ManualPublisher<Int>()
        let subscriber = RecordingSubscriber<Int>()
        upstream.orderedParallelMap(limits: WindowLimits(jobs: 2, aheadBytes: .max, aheadCount: 1), workers: workers,
                                    queue: queue) { gates.transform($0) }
            .subscribe(subscriber)
        let requests = { upstream.subscriptions[0].requests }

        subscriber.request(.max(1))
        queue.sync {}
        XCTAssertEqual(requests(), [.max(1)], "what downstream asked for")
        upstream.send(0)
        gates.waitStarted([0])
        queue.sync {}
        XCTAssertEqual(requests(), [.max(1), .max(1)], "then one ahead of demand, once the asked-for one arrived")
        upstream.send(1)
        gates.waitStarted([1])
        queue.sync {}
        XCTAssertEqual(requests(), [.max(1), .max(1)], "one ahead is the window's count: nothing more")

        gates.open(1)
        gates.open(0)
        waitValues(subscriber, 1)
        queue.sync {}
        XCTAssertEqual(subscriber.values, [0], "the value ahead waits for demand")
        XCTAssertEqual(requests(), [.max(1), .max(1)], "still one ahead")

        subscriber.request(.max(1))
        waitValues(subscriber, 1)
        queue.sync {}
        XCTAssertEqual(subscriber.values, [0, 10])
        XCTAssertEqual(requests(), [.max(1), .max(1), .max(1)], "taken: one more ahead")
        XCTAssertEqual(subscriber.overflows, 0)

        subscriber.cancel()
        XCTAssertEqual(upstream.subscriptions[0].cancels, 1, "the cancel goes upstream, once")
        subscriber.cancel()
        XCTAssertEqual(upstream.subscriptions[0].cancels, 1)
    }
}
