import Dispatch
import Locking

/// `--pick`'s looks taken during the header pass: each photo the
/// selection accepts is looked at as soon as it is handed on, its file
/// still open and its header read, while the pass reads the headers
/// after it. No photo is opened twice (the pass, then the looks) and the
/// looks do not wait for the last header. At most `jobs` + 1 looks are
/// under way (each within the decode budget): a worker that ends one
/// finds the next already handed on, where with `jobs` its core would
/// wait for the pass's thread to wake and hand it one.
///
/// Not Sendable across callers: `look` is called from the header pass's
/// one thread; the looks run on the workers and write only their own row.
final class LookAhead: @unchecked Sendable {
    private let pass: PickPass
    private let results = Locked((prints: [UInt64](), scores: [PackedScore]()))
    private let running: DispatchSemaphore
    private let group = DispatchGroup()

    init(_ pass: PickPass) {
        self.pass = pass
        running = DispatchSemaphore(value: max(1, pass.jobs) + 1)
    }

    /// Looks at `image`, row `row` of the pass's table (rows come in
    /// order, each once), on a worker; waits while `jobs` + 1 are under way.
    func look(row: Int, _ image: AcceptedImage) {
        results.withLock { Self.pad(&$0, to: row + 1) }
        guard !pass.stop() else { return }
        running.wait()
        pass.workers.async(group: group) { [self] in
            defer { running.signal() }
            guard !pass.stop(), let looked = pass.look(image) else { return }
            results.withLock { ($0.prints[row], $0.scores[row]) = (looked.fingerprint, PackedScore(looked.score)) }
        }
    }

    /// Every look's fingerprint and score, in the table's rows (`rows` of
    /// them), once all have ended.
    func finish(rows: Int) -> (prints: [UInt64], scores: [PackedScore]) {
        group.wait()
        return results.withLock { results in
            defer { results = ([], []) }
            Self.pad(&results, to: rows)
            return results
        }
    }

    /// `results` grown to `rows` rows, each new one not looked at (failed).
    private static func pad(_ results: inout (prints: [UInt64], scores: [PackedScore]), to rows: Int) {
        let missing = max(0, rows - results.prints.count)
        results.prints.append(contentsOf: repeatElement(0, count: missing))
        results.scores.append(contentsOf: repeatElement(.failed, count: missing))
    }
}
