@preconcurrency import OpenCombine
import CollageTestSupport
import XCTest
@testable import CollageKit

/// The state machine behind orderedParallelMap, alone: how much it asks of
/// upstream, what it emits and when, completion and cancellation.
final class OrderedWindowTests: XCTestCase {
    func testAsksNothingWithoutDemand() {
        var window = OrderedWindow<String>(limit: 3)
        XCTAssertEqual(window.upstreamRequest(), 0)
        XCTAssertEqual(window.window, 0)
    }

    func testNeverRequestsBeyondTheLimitOrTheDemand() {
        var window = OrderedWindow<String>(limit: 3)
        window.downstreamRequested(.max(2))
        XCTAssertEqual(window.upstreamRequest(), 2, "demand 2 < limit 3")
        XCTAssertEqual(window.upstreamRequest(), 0, "already asked")
        window.downstreamRequested(.max(5))
        XCTAssertEqual(window.upstreamRequest(), 1, "limit 3, two already in the window")
        XCTAssertEqual(window.upstreamRequest(), 0)
        XCTAssertEqual(window.window, 3)

        var unlimited = OrderedWindow<String>(limit: 2)
        unlimited.downstreamRequested(.unlimited)
        XCTAssertEqual(unlimited.upstreamRequest(), 2, "unlimited demand: the limit in flight")
        XCTAssertEqual(unlimited.upstreamRequest(), 0)
    }

    func testEmitsStrictlyInOrderWhenResultsLandOutOfOrder() {
        var window = OrderedWindow<String>(limit: 3)
        window.downstreamRequested(.max(10))
        XCTAssertEqual(window.upstreamRequest(), 3)
        let first = window.received(), second = window.received(), third = window.received()
        XCTAssertEqual([first, second, third], [0, 1, 2])

        window.transformed(2, "c")
        XCTAssertNil(window.nextEmission(), "c waits for a and b")
        window.transformed(1, "b")
        XCTAssertNil(window.nextEmission(), "b waits for a")
        XCTAssertEqual(window.inFlight, 1, "only a still holds a slot")
        XCTAssertEqual(window.upstreamRequest(), 2, "results waiting their turn free their slots")
        XCTAssertEqual(window.upstreamRequest(), 0)
        XCTAssertEqual(window.window, 5)
        let fourth = window.received(), fifth = window.received()
        window.transformed(0, "a")
        var emitted: [String] = []
        while let value = window.nextEmission() {
            emitted.append(value)
            window.emitted(additional: .none)
        }
        XCTAssertEqual(emitted, ["a", "b", "c"])
        XCTAssertEqual(window.demand, .max(7))
        XCTAssertEqual(window.upstreamRequest(), 1, "two still in flight, limit 3")
        XCTAssertEqual(window.window, 3)
        _ = (fourth, fifth)
    }

    func testLookaheadWorksAheadOfDemandUpToTheWindow() {
        var window = OrderedWindow<Int>(limit: 2, lookahead: 2)
        XCTAssertEqual(window.upstreamRequest(), 0, "no demand, nothing ahead of it either")
        window.downstreamRequested(.max(1))
        XCTAssertEqual(window.upstreamRequest(), 2, "one demanded, one ahead; two decoders")
        let a = window.received(), b = window.received()
        window.transformed(a, 1)
        window.transformed(b, 2)
        XCTAssertEqual(window.upstreamRequest(), 1, "demand 1 + lookahead 2 = 3 in the window")
        XCTAssertEqual(window.nextEmission(), 1)
        window.emitted(additional: .none)
        XCTAssertNil(window.nextEmission(), "2 waits for demand")
        XCTAssertEqual(window.upstreamRequest(), 0, "no demand: the window (2 and the one asked for) is full")
    }

    func testHoldsResultsWhileDownstreamHasNoDemand() {
        var window = OrderedWindow<Int>(limit: 2)
        window.downstreamRequested(.max(1))
        XCTAssertEqual(window.upstreamRequest(), 1)
        window.transformed(window.received(), 10)
        XCTAssertEqual(window.nextEmission(), 10)
        window.emitted(additional: .none)
        XCTAssertEqual(window.demand, .none)
        XCTAssertEqual(window.upstreamRequest(), 0, "no demand: nothing asked, nothing transformed ahead")
        // More demand returned from receive counts like a request.
        window.emitted(additional: .max(2))
        XCTAssertEqual(window.upstreamRequest(), 2)
    }

    func testCompletesExactlyOnceAfterUpstreamFinishesAndAllIsEmitted() {
        var window = OrderedWindow<Int>(limit: 2)
        window.downstreamRequested(.max(1))
        XCTAssertEqual(window.upstreamRequest(), 1)
        let sequence = window.received()
        window.finishUpstream()
        XCTAssertFalse(window.shouldComplete(), "a transform is still running")
        XCTAssertEqual(window.upstreamRequest(), 0, "nothing asked of a finished upstream")
        window.transformed(sequence, 42)
        XCTAssertFalse(window.shouldComplete(), "a result is waiting to be emitted")
        XCTAssertEqual(window.nextEmission(), 42)
        window.emitted(additional: .none)
        XCTAssertTrue(window.shouldComplete())
        XCTAssertFalse(window.shouldComplete(), "only once")
        XCTAssertTrue(window.completed)
    }

    func testWaitingResultWithoutDemandDelaysCompletion() {
        var window = OrderedWindow<Int>(limit: 2)
        window.downstreamRequested(.max(1))
        _ = window.upstreamRequest()
        window.transformed(window.received(), 1)
        XCTAssertEqual(window.nextEmission(), 1)
        window.emitted(additional: .none)
        // Demand is spent; upstream finishes with nothing outstanding: done.
        window.finishUpstream()
        XCTAssertTrue(window.shouldComplete())

        var held = OrderedWindow<Int>(limit: 2)
        held.downstreamRequested(.max(2))
        XCTAssertEqual(held.upstreamRequest(), 2)
        let a = held.received(), b = held.received()
        held.transformed(b, 2)
        held.transformed(a, 1)
        XCTAssertEqual(held.nextEmission(), 1)
        held.emitted(additional: .none)
        held.finishUpstream()
        XCTAssertFalse(held.shouldComplete(), "2 is still to be emitted")
        XCTAssertEqual(held.nextEmission(), 2)
        held.emitted(additional: .none)
        XCTAssertTrue(held.shouldComplete())
    }

    func testUpstreamFinishingEarlyClearsOutstandingRequests() {
        var window = OrderedWindow<Int>(limit: 3)
        window.downstreamRequested(.max(3))
        XCTAssertEqual(window.upstreamRequest(), 3)
        window.transformed(window.received(), 7)  // only one of three arrived
        window.finishUpstream()
        XCTAssertEqual(window.requested, 0)
        XCTAssertEqual(window.nextEmission(), 7)
        window.emitted(additional: .none)
        XCTAssertTrue(window.shouldComplete(), "the two that never came do not hold completion")
    }

    func testCancelDropsLateResults() {
        var window = OrderedWindow<Int>(limit: 2)
        window.downstreamRequested(.max(5))
        XCTAssertEqual(window.upstreamRequest(), 2)
        let a = window.received(), b = window.received()
        window.transformed(b, 2)  // waiting for a
        window.cancel()
        XCTAssertEqual(window.waiting, 0, "waiting results dropped")
        window.transformed(a, 1)  // lands after the cancel
        XCTAssertNil(window.nextEmission())
        XCTAssertEqual(window.waiting, 0)
        XCTAssertEqual(window.running, 0)
        XCTAssertEqual(window.upstreamRequest(), 0)
        window.finishUpstream()
        XCTAssertFalse(window.shouldComplete(), "a cancelled window never completes")
    }

    /// Many random interleavings, each checked against the invariants.
    func testRandomInterleavings() {
        var random = SplitMix64(seed: 0xC011A6E)
        for round in 0..<300 {
            let limit = Int.random(in: 1...4, using: &random)
            let lookahead = Int.random(in: 0...2, using: &random)
            let total = Int.random(in: 0...25, using: &random)
            var window = OrderedWindow<Int>(limit: limit, lookahead: lookahead)
            var demanded = 0  // finite demand given so far
            var sent = 0  // values upstream has sent
            var outstanding = 0  // asked of upstream, not yet sent
            var running: [Int] = []  // sequence numbers being transformed
            var emitted: [Int] = []
            var completions = 0
            var steps = 0
            while completions == 0 && steps < 10_000 {
                steps += 1
                switch Int.random(in: 0..<5, using: &random) {
                case 0 where demanded < total:
                    let more = Int.random(in: 1...3, using: &random)
                    demanded += more
                    window.downstreamRequested(.max(more))
                case 1:
                    outstanding += window.upstreamRequest()
                case 2 where outstanding > 0:
                    if sent < total {
                        outstanding -= 1
                        running.append(window.received())
                        sent += 1
                    } else {
                        outstanding = 0
                        window.finishUpstream()
                    }
                case 3 where !running.isEmpty:
                    let sequence = running.remove(at: Int.random(in: 0..<running.count, using: &random))
                    window.transformed(sequence, sequence)
                default:
                    while let value = window.nextEmission() {
                        emitted.append(value)
                        window.emitted(additional: .none)
                    }
                    if sent == total && outstanding == 0 && !window.upstreamFinished && demanded >= total {
                        window.finishUpstream()
                    }
                    if window.shouldComplete() { completions += 1 }
                }
                // Invariants, after every step.
                XCTAssertLessThanOrEqual(window.inFlight, limit, "round \(round): more in flight than the limit")
                XCTAssertLessThanOrEqual(window.window + emitted.count, demanded + lookahead,
                                         "round \(round): more in flight than downstream asked for, plus the window")
                XCTAssertEqual(emitted, Array(0..<emitted.count), "round \(round): out of order")
                XCTAssertLessThanOrEqual(emitted.count, demanded, "round \(round): emitted beyond demand")
            }
            XCTAssertEqual(completions, 1, "round \(round): completes once (limit \(limit), \(total) values)")
            XCTAssertEqual(emitted, Array(0..<total), "round \(round)")
            XCTAssertFalse(window.shouldComplete())
        }
    }
}
