import CollageTestSupport
import XCTest
@testable import CollageKit

/// The state machine behind orderedParallelMap under many random
/// interleavings of demand, arrivals, starts, finishes and emissions.
/// (Each rule alone: OrderedWindowTests.)
final class OrderedWindowRandomTests: XCTestCase {
    /// Many random interleavings, each checked against the invariants: at
    /// most `jobs` run and within the budget (or alone); results come out
    /// in order and never beyond demand; the started work holds at most what
    /// was demanded plus `aheadBytes`, and the window at most `aheadCount`
    /// values beyond demand; everything is emitted and completion comes once
    /// (so no value starves).
    func testRandomInterleavings() {
        var random = SplitMix64(seed: 0xC011A6E)
        for round in 0..<400 {
            let jobs = Int.random(in: 1...4, using: &random)
            let memory = Int.random(in: 50...200, using: &random)
            let limits = WindowLimits(jobs: jobs, aheadBytes: Int.random(in: 0...40, using: &random),
                                      aheadCount: Int.random(in: 0...6, using: &random))
            let total = Int.random(in: 0...30, using: &random)
            let costs = (0..<total).map { _ in
                WorkCost(running: Int.random(in: 0...3, using: &random) == 0 ? Int.random(in: 40...250, using: &random)
                                                                               : Int.random(in: 1...20, using: &random),
                         held: Int.random(in: 1...10, using: &random))
            }
            var window = OrderedWindow<Int, Int>(limits: limits, memory: memory)
            var budget = OrderedWindowTests.Budget(limit: memory)
            var demanded = 0, sent = 0, outstanding = 0
            var running: [Int] = []
            var started = Set<Int>()  // started, not emitted
            var emitted: [Int] = []
            var completions = 0
            var steps = 0
            while completions == 0 && steps < 20_000 {
                steps += 1
                switch Int.random(in: 0..<6, using: &random) {
                case 0 where demanded < total:
                    let more = Int.random(in: 1...4, using: &random)
                    demanded += more
                    window.downstreamRequested(.max(more))
                case 1:
                    outstanding += window.upstreamRequest()
                case 2 where outstanding > 0:
                    if sent < total {
                        outstanding -= 1
                        window.received(sent, cost: costs[sent])
                        sent += 1
                    } else {
                        outstanding = 0
                        window.finishUpstream()
                    }
                case 3:
                    while let next = window.nextStart(tryAcquire: { budget.tryAcquire($0) }) {
                        running.append(next.input)
                        started.insert(next.input)
                    }
                case 4 where !running.isEmpty:
                    let value = running.remove(at: Int.random(in: 0..<running.count, using: &random))
                    budget.release(costs[value].running)
                    window.transformed(value, value)
                default:
                    while let value = window.nextEmission() {
                        emitted.append(value)
                        started.remove(value)
                        window.emitted(additional: .none)
                    }
                    if sent == total && outstanding == 0 && !window.upstreamFinished && demanded >= total {
                        window.finishUpstream()
                    }
                    if window.shouldComplete() { completions += 1 }
                }
                XCTAssertLessThanOrEqual(running.count, jobs, "round \(round): more running than jobs")
                XCTAssertTrue(budget.used <= memory || running.count == 1, "round \(round): over the budget, not alone")
                XCTAssertEqual(emitted, Array(0..<emitted.count), "round \(round): out of order")
                XCTAssertLessThanOrEqual(emitted.count, demanded, "round \(round): emitted beyond demand")
                // Held: the started values asked for, plus the window's bytes ahead.
                XCTAssertEqual(window.heldBytes, started.reduce(0) { $0 + costs[$1].held })
                let demandedHeld = started.filter { $0 < demanded }.reduce(0) { $0 + costs[$1].held }
                XCTAssertLessThanOrEqual(window.heldBytes, demandedHeld + limits.aheadBytes,
                                         "round \(round): started work beyond demand over the window's bytes")
                XCTAssertLessThanOrEqual(window.count, max(demanded - emitted.count, 0) + limits.aheadCount + 1,
                                         "round \(round): more values ahead than aheadCount")
            }
            XCTAssertEqual(completions, 1, "round \(round): completes once (jobs \(jobs), \(total) values)")
            XCTAssertEqual(emitted, Array(0..<total), "round \(round)")
        }
    }
}
