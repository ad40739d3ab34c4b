import Dispatch
import Foundation
@preconcurrency import OpenCombine
import Locking
import XCTest
@testable import CollageKit

/// orderedParallelMap end to end: transforms blocked on gates the test
/// opens one at a time (no sleeps), so the test knows exactly what is
/// running, what upstream was asked for, and what has been emitted.
final class OrderedParallelMapTests: XCTestCase {
    /// What the transforms did: gates to hold them, signals that they started,
    /// and the most that ran at once.
    final class Gates: Sendable {
        let gates: [DispatchSemaphore]
        let started: [DispatchSemaphore]
        private struct Counts {
            var running = 0
            var maxRunning = 0
            var startOrder: [Int] = []
        }
        private let counts = Locked(Counts())  // contended: a pthread mutex TSan sees
        var maxRunning: Int { counts.withLock { $0.maxRunning } }
        var startOrder: [Int] { counts.withLock { $0.startOrder } }

        init(_ count: Int) {
            gates = (0..<count).map { _ in DispatchSemaphore(value: 0) }
            started = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        }

        func transform(_ value: Int) -> Int {
            counts.withLock { counts in
                counts.running += 1
                counts.maxRunning = max(counts.maxRunning, counts.running)
                counts.startOrder.append(value)
            }
            started[value].signal()
            gates[value].wait()
            counts.withLock { $0.running -= 1 }
            return value * 10
        }

        func open(_ index: Int) { gates[index].signal() }

        func waitStarted(_ indices: [Int], file: StaticString = #filePath, line: UInt = #line) {
            for index in indices {
                XCTAssertEqual(started[index].wait(timeout: .now() + 30), .success, "transform \(index) started",
                               file: file, line: line)
            }
        }
    }

    private func waitValues(_ subscriber: RecordingSubscriber<Int>, _ count: Int,
                            file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0..<count {
            XCTAssertEqual(subscriber.valueSignal.wait(timeout: .now() + 30), .success, "a value arrived",
                           file: file, line: line)
        }
    }

    func testAtMostMaxConcurrentRunAndOutputIsInInputOrder() {
        let gates = Gates(6)
        let calls = Counter()
        let workers = DispatchQueue(label: "test.workers", attributes: .concurrent)
        let queue = DispatchQueue(label: "test.emit")
        let subscriber = RecordingSubscriber<Int>()
        Publishers.Pull { CountingSource(base: ArraySource(Array(0..<6)), calls: calls) }
            .orderedParallelMap(maxConcurrent: 2, workers: workers, queue: queue) { gates.transform($0) }
            .subscribe(subscriber)
        subscriber.request(.unlimited)

        gates.waitStarted([0, 1])
        queue.sync {}  // every drain so far has run: its requests upstream are made
        XCTAssertEqual(calls.value, 2, "unlimited demand, but only maxConcurrent asked of upstream")
        XCTAssertEqual(subscriber.values, [])

        // Finish 1 before 0: its result must wait, and take its slot while it waits.
        gates.open(1)
        gates.open(0)
        waitValues(subscriber, 2)
        XCTAssertEqual(subscriber.values, [0, 10])
        gates.waitStarted([2, 3])
        queue.sync {}
        XCTAssertEqual(calls.value, 4)

        gates.open(3)
        gates.open(2)
        waitValues(subscriber, 2)
        XCTAssertEqual(subscriber.values, [0, 10, 20, 30])
        gates.waitStarted([4, 5])

        gates.open(5)
        gates.open(4)
        waitValues(subscriber, 2)
        XCTAssertEqual(subscriber.completionSignal.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(subscriber.values, [0, 10, 20, 30, 40, 50], "input order, whatever the finishing order")
        XCTAssertEqual(gates.maxRunning, 2, "two at once, never three")
        XCTAssertEqual(gates.startOrder.count, 6)
        XCTAssertEqual(calls.value, 7, "six values and the end")
        XCTAssertEqual(subscriber.completions, 1)
    }

    func testNothingIsTransformedAheadOfDemand() {
        let gates = Gates(5)
        let calls = Counter()
        let workers = DispatchQueue(label: "test.workers", attributes: .concurrent)
        let queue = DispatchQueue(label: "test.emit")
        let subscriber = RecordingSubscriber<Int>()
        Publishers.Pull { CountingSource(base: ArraySource(Array(0..<5)), calls: calls) }
            .orderedParallelMap(maxConcurrent: 3, workers: workers, queue: queue) { gates.transform($0) }
            .subscribe(subscriber)
        queue.sync {}
        XCTAssertEqual(calls.value, 0, "no demand yet")

        subscriber.request(.max(1))
        gates.waitStarted([0])
        queue.sync {}
        XCTAssertEqual(calls.value, 1, "demand 1 < maxConcurrent 3: one asked of upstream")
        gates.open(0)
        waitValues(subscriber, 1)
        queue.sync {}
        XCTAssertEqual(calls.value, 1, "demand spent: nothing more asked")

        subscriber.request(.max(2))
        gates.waitStarted([1, 2])
        queue.sync {}
        XCTAssertEqual(calls.value, 3)
        gates.open(2)
        gates.open(1)
        waitValues(subscriber, 2)
        XCTAssertEqual(subscriber.values, [0, 10, 20])
        queue.sync {}
        XCTAssertEqual(calls.value, 3)
        XCTAssertEqual(subscriber.overflows, 0)
        XCTAssertEqual(gates.maxRunning, 2)
        subscriber.cancel()
        // Let the transforms that never started stay gated; nothing else to clean.
    }

    func testCancelDropsResultsThatLandLater() {
        let gates = Gates(2)
        let calls = Counter()
        // Serial workers: transform 1 starts only after transform 0 has returned
        // and queued its result, so the test knows when results have landed.
        let workers = DispatchQueue(label: "test.workers")
        let queue = DispatchQueue(label: "test.emit")
        let subscriber = RecordingSubscriber<Int>()
        Publishers.Pull { CountingSource(base: ArraySource(Array(0..<2)), calls: calls) }
            .orderedParallelMap(maxConcurrent: 2, workers: workers, queue: queue) { gates.transform($0) }
            .subscribe(subscriber)
        subscriber.request(.unlimited)
        gates.waitStarted([0])
        queue.sync {}  // the drain that asked for both values has finished
        XCTAssertEqual(calls.value, 2)
        subscriber.cancel()
        gates.open(0)
        gates.waitStarted([1])
        gates.open(1)
        workers.sync {}
        queue.sync {}
        XCTAssertEqual(subscriber.values, [], "results that land after the cancel are dropped")
        XCTAssertEqual(subscriber.completions, 0)
        XCTAssertEqual(calls.value, 2, "the source was asked for nothing after the cancel")
    }

    func testManyValuesUnevenWork() {
        let count = 60
        let workers = DispatchQueue(label: "test.workers", attributes: .concurrent)
        let queue = DispatchQueue(label: "test.emit")
        let counts = Locked((running: 0, max: 0))
        let subscriber = RecordingSubscriber<Int>(initialDemand: .unlimited)
        Publishers.Pull { ArraySource(Array(0..<count)) }
            .orderedParallelMap(maxConcurrent: 3, workers: workers, queue: queue) { value -> Int in
                counts.withLock { $0.running += 1; $0.max = max($0.max, $0.running) }
                // Uneven busy work: later values often finish first.
                var sum = 0
                for step in 0..<((count - value) % 7 * 20_000) { sum &+= step }
                counts.withLock { $0.running -= 1 }
                return value + (sum == -1 ? 1 : 0)
            }
            .subscribe(subscriber)
        XCTAssertEqual(subscriber.completionSignal.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(subscriber.values, Array(0..<count))
        XCTAssertLessThanOrEqual(counts.withLock { $0.max }, 3)
        XCTAssertEqual(subscriber.completions, 1)
    }
}
