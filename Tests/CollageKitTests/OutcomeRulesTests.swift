import XCTest
@testable import CollageKit

/// Which status wins when several things happened: one table, every row a
/// combination a run or a job can meet.
final class OutcomeRulesTests: XCTestCase {
    private func summary(written: Int = 0, failed: Int = 0, flagged: Int = 0,
                         compared: [PairStatus] = []) -> Summary {
        var summary = Summary()
        (summary.written, summary.failed, summary.flagged) = (written, failed, flagged)
        for status in compared { summary.compared.count(status) }
        return summary
    }

    func testTheTable() {
        let diskFull = RunFailure(status: .ioError, message: "out.jpg: No space left on device")
        let noFolder = RunFailure(status: .cannotCreateOutput, message: "cannot write to folder 'x'")
        typealias Row = (facts: OutcomeFacts, status: ExitStatus, line: String)
        let rows: [Row] = [
            (OutcomeFacts(summary: summary(written: 1)), .success, ""),
            (OutcomeFacts(summary: summary(written: 1, failed: 2)), .someInputsFailed,
             "2 input(s) could not be read or decoded (each reported above)"),
            (OutcomeFacts(scope: .folders, summary: summary(written: 3, failed: 1)), .someInputsFailed,
             "1 input(s) or folder(s) could not be used (each reported above)"),
            (OutcomeFacts(summary: summary(failed: 1), nothingToDo: "no eligible image found (1 failed)"), .noInput,
             "no eligible image found (1 failed)"),
            (OutcomeFacts(summary: summary(written: 1, flagged: 2)), .success, ""),
            (OutcomeFacts(summary: summary(written: 1, flagged: 2), failOnFlag: true), .someInputsFailed,
             "2 image(s) flagged (each reported above); --fail-on-flag makes that a failure"),
            (OutcomeFacts(summary: summary(written: 1, failed: 1, flagged: 2), failOnFlag: true), .someInputsFailed,
             "1 input(s) could not be read or decoded (each reported above)"),
            (OutcomeFacts(failure: diskFull, summary: summary(written: 1, failed: 3)), .ioError, diskFull.message),
            (OutcomeFacts(failure: noFolder, nothingToDo: "no eligible image found"), .cannotCreateOutput,
             noFolder.message),
            (OutcomeFacts(interruption: .terminated, failure: diskFull, summary: summary(written: 2, failed: 1)),
             .terminated, "interrupted: no partial output left (2 collage(s) written before)"),
            (OutcomeFacts(interruption: .interrupted, nothingToDo: "no eligible image found"), .interrupted,
             "interrupted: no partial output left"),
            (OutcomeFacts(scope: .folders, interruption: .interrupted, summary: summary(written: 2)), .interrupted,
             "interrupted: no partial output left"),
            (OutcomeFacts(scope: .watch, interruption: .terminated, summary: summary(written: 4, failed: 1)),
             .terminated, "stopped watching (4 collage(s) written)"),
            // --diff: 1 when something differs, under a failed input, over flags.
            (OutcomeFacts(summary: summary(compared: [.unchanged, .unchanged])), .success, ""),
            (OutcomeFacts(summary: summary(written: 1, compared: [.changed, .added, .unchanged])), .differs,
             "2 of 3 image(s) differ from the baseline (1 changed, 1 added, 0 removed)"),
            (OutcomeFacts(summary: summary(written: 1, compared: [.removed])), .differs,
             "1 of 1 image(s) differ from the baseline (0 changed, 0 added, 1 removed)"),
            (OutcomeFacts(summary: summary(written: 1, failed: 1, compared: [.changed])), .someInputsFailed,
             "1 input(s) could not be read or decoded (each reported above)"),
            (OutcomeFacts(summary: summary(written: 1, flagged: 1, compared: [.changed]), failOnFlag: true), .differs,
             "1 of 1 image(s) differ from the baseline (1 changed, 0 added, 0 removed)"),
            (OutcomeFacts(failure: diskFull, summary: summary(compared: [.changed])), .ioError, diskFull.message),
            (OutcomeFacts(interruption: .interrupted, summary: summary(compared: [.changed])), .interrupted,
             "interrupted: no partial output left"),
            (OutcomeFacts(summary: summary(), differs: true), .differs,
             "the images differ from the baseline as when the sheets left unchanged were made"),
        ]
        for (index, row) in rows.enumerated() {
            let outcome = OutcomeRules.decide(row.facts)
            XCTAssertEqual(outcome.status, row.status, "row \(index)")
            XCTAssertEqual(outcome.message ?? "", row.line, "row \(index)")
            XCTAssertEqual(outcome.summary, row.facts.summary, "row \(index)")
        }
    }

    func testNothingToDoFromTheTally() {
        var tally = Tally()
        XCTAssertEqual(OutcomeRules.nothingToDo(tally), "no eligible image found")
        tally.summary.rejected = 2
        tally.summary.portraits = 2
        XCTAssertEqual(OutcomeRules.nothingToDo(tally),
                       "no eligible image found (2 rejected); --allow-portrait keeps portrait photos")
        tally.droppedForEven = 1
        XCTAssertEqual(OutcomeRules.nothingToDo(tally), "nothing to write: --require-even left out the only eligible image")
        tally.sharded = true
        tally.accepted = 3
        XCTAssertNil(OutcomeRules.nothingToDo(tally), "a shard whose sheets are all others' did its part")
        var unchanged = Tally()
        unchanged.summary.unchanged = 1
        XCTAssertNil(OutcomeRules.nothingToDo(unchanged))
        var compared = Tally()
        compared.summary.compared.count(.unchanged)
        XCTAssertNil(OutcomeRules.nothingToDo(compared), "a diff that found nothing different did its job")
    }
}
