import Dispatch
@preconcurrency import OpenCombine
import XCTest
@testable import CollageKit

/// The DispatchTimer publisher: a tick per interval while the subscriber has
/// demand, none beyond it (a tick without demand is dropped), none after a
/// cancel. The test waits for the ticks it expects; where it says none come,
/// it watches for many intervals, so a slow machine only makes it watch
/// fewer ticks go by, never fail.
final class DispatchTimerTests: XCTestCase {
    private let interval = DispatchTimeInterval.milliseconds(2)
    private let queue = DispatchQueue(label: "test.timer")

    private func timer() -> Publishers.DispatchTimer { Publishers.DispatchTimer(interval: interval, queue: queue) }

    private func waitTicks(_ subscriber: RecordingSubscriber<DispatchTime>, _ count: Int,
                           file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0..<count {
            XCTAssertEqual(subscriber.valueSignal.wait(timeout: .now() + 30), .success, "a tick", file: file, line: line)
        }
    }

    /// No tick for 50 intervals.
    private func assertNoTick(_ subscriber: RecordingSubscriber<DispatchTime>, _ why: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(subscriber.valueSignal.wait(timeout: .now() + .milliseconds(100)), .timedOut, why,
                       file: file, line: line)
    }

    private func assertInOrder(_ ticks: [DispatchTime], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(zip(ticks, ticks.dropFirst()).allSatisfy { $0 < $1 }, "ticks in time order", file: file, line: line)
    }

    func testNoTickBeforeDemand() {
        let subscriber = RecordingSubscriber<DispatchTime>()
        timer().subscribe(subscriber)
        assertNoTick(subscriber, "no demand, no tick")
        XCTAssertEqual(subscriber.demands, [])
        subscriber.request(.max(1))
        waitTicks(subscriber, 1)
        XCTAssertEqual(subscriber.values.count, 1)
        subscriber.cancel()
    }

    func testADemandOfNGetsNTicksThenNoneUntilAskedAgain() {
        let subscriber = RecordingSubscriber<DispatchTime>(initialDemand: .max(3))
        timer().subscribe(subscriber)
        waitTicks(subscriber, 3)
        assertNoTick(subscriber, "three asked for, three given")
        XCTAssertEqual(subscriber.values.count, 3)

        subscriber.request(.max(2))
        waitTicks(subscriber, 2)
        assertNoTick(subscriber, "two more asked for, two more given")
        XCTAssertEqual(subscriber.values.count, 5)
        XCTAssertEqual(subscriber.demands, [.max(3), .max(2)])
        XCTAssertEqual(subscriber.overflows, 0)
        assertInOrder(subscriber.values)
        subscriber.cancel()
    }

    func testDemandReturnedFromReceiveIsHonoured() {
        let subscriber = RecordingSubscriber<DispatchTime>(initialDemand: .max(1)) { subscriber, _ in
            subscriber.values.count < 4 ? .max(1) : .none
        }
        timer().subscribe(subscriber)
        waitTicks(subscriber, 4)
        assertNoTick(subscriber, "the fourth tick returned no demand")
        XCTAssertEqual(subscriber.values.count, 4)
        XCTAssertEqual(subscriber.demands, [.max(1), .max(1), .max(1), .max(1)])
        XCTAssertEqual(subscriber.overflows, 0)
        subscriber.cancel()
    }

    func testCancelInsideReceiveStopsTheTicks() {
        let subscriber = RecordingSubscriber<DispatchTime>(initialDemand: .unlimited) { subscriber, _ in
            if subscriber.values.count == 2 { subscriber.cancel() }
            return .none
        }
        timer().subscribe(subscriber)
        waitTicks(subscriber, 2)
        assertNoTick(subscriber, "cancelled on the second tick, with demand left")
        XCTAssertEqual(subscriber.values.count, 2)
        XCTAssertEqual(subscriber.completions, 0, "a cancelled timer does not complete")
    }

    func testCancelStopsTheTicks() {
        let subscriber = RecordingSubscriber<DispatchTime>(initialDemand: .unlimited)
        timer().subscribe(subscriber)
        waitTicks(subscriber, 2)
        // On the timer's queue, so that no tick is being delivered meanwhile.
        let delivered = queue.sync { () -> Int in
            subscriber.cancel()
            return subscriber.values.count
        }
        XCTAssertGreaterThanOrEqual(delivered, 2)
        while subscriber.valueSignal.wait(timeout: .now()) == .success {}  // ticks counted in `delivered`
        assertNoTick(subscriber, "nothing after the cancel")
        XCTAssertEqual(subscriber.values.count, delivered)
        XCTAssertEqual(subscriber.completions, 0)
        assertInOrder(subscriber.values)
    }

    func testEachSubscriptionHasItsOwnTimer() {
        let publisher = timer()
        let one = RecordingSubscriber<DispatchTime>(initialDemand: .max(1))
        let other = RecordingSubscriber<DispatchTime>(initialDemand: .max(2))
        publisher.subscribe(one)
        publisher.subscribe(other)
        waitTicks(one, 1)
        waitTicks(other, 2)
        one.cancel()
        assertNoTick(other, "its demand is spent")
        XCTAssertEqual(one.values.count, 1)
        XCTAssertEqual(other.values.count, 2)
        other.request(.max(1))
        waitTicks(other, 1)
        XCTAssertEqual(other.values.count, 3, "the other's timer outlives the first's cancel")
        other.cancel()
    }
}
