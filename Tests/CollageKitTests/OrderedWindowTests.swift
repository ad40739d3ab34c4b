@preconcurrency import OpenCombine
import CollageTestSupport
import XCTest
@testable import CollageKit

/// The state machine behind orderedParallelMap, alone: how much it asks of
/// upstream (demand, and the window ahead of it in bytes and images), which
/// value starts within the memory budget, what it emits and when,
/// completion and cancellation. (Random interleavings:
/// OrderedWindowRandomTests.)
final class OrderedWindowTests: XCTestCase {
    typealias Window = OrderedWindow<String, String>

    /// A memory budget as `DecodeBudget` keeps it: a value fits beside what
    /// runs, or alone.
    struct Budget {
        let limit: Int
        var used = 0
        var running = 0
        mutating func tryAcquire(_ bytes: Int) -> Bool {
            guard running == 0 || used + bytes <= limit else { return false }
            used += bytes
            running += 1
            return true
        }
        mutating func release(_ bytes: Int) {
            used -= bytes
            running -= 1
        }
    }

    private func cost(_ running: Int, held: Int = 1) -> WorkCost { WorkCost(running: running, held: held) }

    /// Starts everything that may start; returns the inputs started.
    private func startAll(_ window: inout Window, _ budget: inout Budget) -> [String] {
        var started: [String] = []
        while let next = window.nextStart(tryAcquire: { budget.tryAcquire($0) }) { started.append(next.input) }
        return started
    }

    func testAsksNothingWithoutDemand() {
        var window = Window(limits: WindowLimits(jobs: 3, aheadBytes: 100, aheadCount: 10))
        XCTAssertEqual(window.upstreamRequest(), 0, "nothing is worked on ahead before downstream asks")
        XCTAssertEqual(window.count, 0)
    }

    func testDemandIsAskedForWhateverTheWindowHolds() {
        var window = Window(limits: .demandOnly(jobs: 2))
        window.downstreamRequested(.max(6))
        XCTAssertEqual(window.upstreamRequest(), 6, "a sheet's worth, all at once: demand never waits on the window")
        XCTAssertEqual(window.upstreamRequest(), 0, "already asked")
        for name in ["a", "b", "c", "d", "e", "f"] { window.received(name, cost: cost(1, held: 1 << 30)) }
        XCTAssertEqual(window.upstreamRequest(), 0, "demand-only: nothing ahead of the demand")
        var budget = Budget(limit: 10)
        XCTAssertEqual(startAll(&window, &budget), ["a", "b"], "at most jobs at once, oldest first")
    }

    func testLooksAheadOneValueAtATimeAndStartsAheadOnlyWithinTheWindowBytes() {
        var window = Window(limits: WindowLimits(jobs: 4, aheadBytes: 10, aheadCount: 5))
        var budget = Budget(limit: .max)
        window.downstreamRequested(.max(1))
        XCTAssertEqual(window.upstreamRequest(), 1, "the demanded value")
        XCTAssertEqual(window.upstreamRequest(), 0, "its cost is not known yet: nothing ahead until it arrives")
        var names = ["a", "b", "c", "d", "e", "f", "g"]
        window.received(names.removeFirst(), cost: cost(1, held: 4))
        while window.upstreamRequest() == 1 { window.received(names.removeFirst(), cost: cost(1, held: 4)) }
        XCTAssertEqual(window.count, 6, "the demanded value and five ahead: headers only, nothing decoded")
        XCTAssertEqual(startAll(&window, &budget), ["a", "b"], "a was asked for; b keeps the started work at 8 <= 10")
        XCTAssertEqual(window.heldBytes, 8)
        window.transformed(0, "A")
        XCTAssertEqual(window.nextEmission(), "A")
        window.emitted(additional: .none)
        XCTAssertEqual(startAll(&window, &budget), ["c"], "A left: room for one more ahead")
    }

    func testLooksAheadAtMostAheadCountValues() {
        var window = Window(limits: WindowLimits(jobs: 2, aheadBytes: .max, aheadCount: 3))
        window.downstreamRequested(.max(2))
        XCTAssertEqual(window.upstreamRequest(), 2)
        window.received("a", cost: cost(1))
        window.received("b", cost: cost(1))
        var arrived = 0
        while window.upstreamRequest() == 1 {
            window.received("x\(arrived)", cost: cost(1))
            arrived += 1
        }
        XCTAssertEqual(arrived, 3, "three beyond the two demanded")
        XCTAssertEqual(window.count, 5)
    }

    func testEmitsStrictlyInOrderWhenResultsLandOutOfOrder() {
        var window = Window(limits: .demandOnly(jobs: 3))
        var budget = Budget(limit: .max)
        window.downstreamRequested(.max(3))
        XCTAssertEqual(window.upstreamRequest(), 3)
        let sequences = ["a", "b", "c"].map { window.received($0, cost: cost(1)) }
        XCTAssertEqual(sequences, [0, 1, 2])
        XCTAssertEqual(startAll(&window, &budget), ["a", "b", "c"])
        window.transformed(2, "C")
        XCTAssertNil(window.nextEmission(), "C waits for A and B")
        window.transformed(1, "B")
        XCTAssertNil(window.nextEmission(), "B waits for A")
        XCTAssertEqual(window.runningCount, 1, "results waiting their turn do not hold a job")
        window.transformed(0, "A")
        var emitted: [String] = []
        while let value = window.nextEmission() {
            emitted.append(value)
            window.emitted(additional: .none)
        }
        XCTAssertEqual(emitted, ["A", "B", "C"])
        XCTAssertEqual(window.heldBytes, 0)
    }

    /// A giant that does not fit beside the one running waits; small values
    /// behind it start on the free core; it starts as soon as it fits.
    func testSmallValuesStartBesideAGiantThatMustWait() {
        var window = Window(limits: WindowLimits(jobs: 2, aheadBytes: .max, aheadCount: 10), memory: 100)
        var budget = Budget(limit: 100)
        window.downstreamRequested(.max(4))
        XCTAssertEqual(window.upstreamRequest(), 4)
        window.received("giant1", cost: cost(85))
        window.received("giant2", cost: cost(85))
        window.received("small1", cost: cost(5))
        window.received("small2", cost: cost(5))
        XCTAssertEqual(startAll(&window, &budget), ["giant1", "small1"], "giant2 does not fit beside giant1")
        budget.release(5)
        window.transformed(2, "s1")
        XCTAssertEqual(startAll(&window, &budget), ["small2"], "giant1 still runs: the next small one")
        budget.release(85)
        window.transformed(0, "g1")
        XCTAssertEqual(startAll(&window, &budget), ["giant2"], "85 + 5 fits: giant2 starts beside small2")
        XCTAssertEqual(budget.used, 90)
    }

    /// A heavy value starts as soon as the window sees it, ahead of older
    /// light ones, so that it is done by its turn.
    func testHeavyValuesStartFirst() {
        var window = Window(limits: WindowLimits(jobs: 2, aheadBytes: .max, aheadCount: 10), memory: 100)
        var budget = Budget(limit: 100)
        window.downstreamRequested(.max(5))
        XCTAssertEqual(window.upstreamRequest(), 5)
        for (name, running) in [("s0", 5), ("s1", 5), ("s2", 5), ("giant", 80), ("s4", 5)] {
            window.received(name, cost: cost(running))
        }
        XCTAssertEqual(startAll(&window, &budget), ["giant", "s0"], "a quarter of the budget or more goes first")
    }

    /// Nothing starts beside a value bigger than the whole budget, and
    /// nothing starts ahead of it once it waits: it runs alone.
    func testAValueTooBigToShareRunsAlone() {
        var window = Window(limits: WindowLimits(jobs: 2, aheadBytes: .max, aheadCount: 10), memory: 100)
        var budget = Budget(limit: 100)
        window.downstreamRequested(.max(4))
        XCTAssertEqual(window.upstreamRequest(), 4)
        window.received("older", cost: cost(5))
        XCTAssertEqual(startAll(&window, &budget), ["older"])
        window.received("huge", cost: cost(120))
        window.received("small1", cost: cost(5))
        window.received("small2", cost: cost(5))
        XCTAssertEqual(startAll(&window, &budget), [], "huge does not fit beside older, and nothing may jump it")
        budget.release(5)
        window.transformed(0, "o")
        XCTAssertEqual(startAll(&window, &budget), ["huge"], "alone, as soon as older is done")
        budget.release(120)
        window.transformed(1, "h")
        XCTAssertEqual(startAll(&window, &budget), ["small1", "small2"])
    }

    /// Values started ahead of a waiting one add up: together with it they
    /// must fit, so it is never starved (here with three jobs).
    func testValuesStartedAheadLeaveRoomForTheWaitingOne() {
        var window = Window(limits: WindowLimits(jobs: 3, aheadBytes: .max, aheadCount: 10), memory: 100)
        var budget = Budget(limit: 100)
        window.downstreamRequested(.max(5))
        XCTAssertEqual(window.upstreamRequest(), 5)
        window.received("first", cost: cost(60))
        window.received("second", cost: cost(60))
        window.received("a", cost: cost(30))
        window.received("b", cost: cost(30))
        window.received("c", cost: cost(10))
        XCTAssertEqual(startAll(&window, &budget), ["first", "a", "c"],
                       "a (30) leaves room for second (60); b would not (30 + 30 + 60), c (10) does")
        budget.release(60)
        window.transformed(0, "1")
        XCTAssertEqual(startAll(&window, &budget), ["second"], "second fits beside a and c the moment first is done")
    }

    func testHoldsResultsWhileDownstreamHasNoDemand() {
        var window = Window(limits: .demandOnly(jobs: 2))
        var budget = Budget(limit: .max)
        window.downstreamRequested(.max(1))
        XCTAssertEqual(window.upstreamRequest(), 1)
        window.received("a", cost: cost(1))
        _ = startAll(&window, &budget)
        window.transformed(0, "A")
        XCTAssertEqual(window.nextEmission(), "A")
        window.emitted(additional: .none)
        XCTAssertEqual(window.demand, .none)
        XCTAssertEqual(window.upstreamRequest(), 0, "no demand: nothing asked, nothing transformed ahead")
        window.emitted(additional: .max(2))  // more demand returned from receive counts like a request
        XCTAssertEqual(window.upstreamRequest(), 2)
    }

    func testUnlimitedDemandKeepsEveryJobBusy() {
        var window = Window(limits: .demandOnly(jobs: 2))
        window.downstreamRequested(.unlimited)
        XCTAssertEqual(window.upstreamRequest(), 2)
        XCTAssertEqual(window.upstreamRequest(), 0)
    }

    func testCompletesExactlyOnceAfterUpstreamFinishesAndAllIsEmitted() {
        var window = Window(limits: .demandOnly(jobs: 2))
        var budget = Budget(limit: .max)
        window.downstreamRequested(.max(2))
        XCTAssertEqual(window.upstreamRequest(), 2)
        window.received("a", cost: cost(1))
        window.finishUpstream()
        XCTAssertFalse(window.shouldComplete(), "a has not started")
        _ = startAll(&window, &budget)
        XCTAssertFalse(window.shouldComplete(), "a is running")
        XCTAssertEqual(window.upstreamRequest(), 0, "nothing asked of a finished upstream")
        window.transformed(0, "A")
        XCTAssertFalse(window.shouldComplete(), "A waits to be emitted")
        XCTAssertEqual(window.nextEmission(), "A")
        window.emitted(additional: .none)
        XCTAssertTrue(window.shouldComplete())
        XCTAssertFalse(window.shouldComplete(), "only once")
        XCTAssertTrue(window.completed)
    }

    func testCancelDropsWaitingInputsAndLateResults() {
        var window = Window(limits: .demandOnly(jobs: 1))
        var budget = Budget(limit: .max)
        window.downstreamRequested(.max(3))
        XCTAssertEqual(window.upstreamRequest(), 3)
        for name in ["a", "b", "c"] { window.received(name, cost: cost(1)) }
        XCTAssertEqual(startAll(&window, &budget), ["a"])
        XCTAssertEqual(window.cancel(), ["b", "c"], "the inputs that never started are handed back")
        window.transformed(0, "A")  // lands after the cancel
        XCTAssertNil(window.nextEmission())
        XCTAssertNil(window.nextStart(tryAcquire: { _ in true }))
        XCTAssertEqual(window.upstreamRequest(), 0)
        window.finishUpstream()
        XCTAssertFalse(window.shouldComplete(), "a cancelled window never completes")
    }
}
