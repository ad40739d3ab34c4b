import Dispatch
import Locking

/// `--pick`'s looks taken during the header pass: each photo the
/// selection accepts is looked at as soon as it is handed on, its file
/// still open and its header read, at most `jobs` at once, while the pass
/// reads the headers after it. No photo is opened twice (the pass, then
/// the looks) and the looks do not wait for the last header.
///
/// The pass hands photos on into a queue of at most `jobs` waiting; a
/// worker that ends a look takes the next waiting one itself, so its core
/// never waits for the pass's thread to wake and hand one on, and a
/// worker that finds none ends (the pass starts another when it hands on
/// a photo while fewer than `jobs` run). No worker ever waits for work
/// queued behind it on the same workers (the header pass's reads).
///
/// Not Sendable across callers: `look` and `finish` are called from the
/// header pass's one thread; the looks run on the workers and write only
/// their own row.
final class LookAhead: @unchecked Sendable {
    private let pass: PickPass
    private let results = Locked((prints: [UInt64](), scores: [PackedScore]()))
    /// The photos handed on and not yet taken, and how many workers run.
    private let queue = Locked((waiting: [(row: Int, image: AcceptedImage)](), running: 0))
    /// Room in the queue: `jobs` photos wait at most (each holds its file open).
    private let room: DispatchSemaphore
    private let jobs: Int
    private let group = DispatchGroup()

    init(_ pass: PickPass) {
        self.pass = pass
        jobs = max(1, pass.jobs)
        room = DispatchSemaphore(value: jobs)
    }

    /// Looks at `image`, row `row` of the pass's table (rows come in
    /// order, each once), on a worker; waits while `jobs` photos wait.
    func look(row: Int, _ image: AcceptedImage) {
        results.withLock { Self.pad(&$0, to: row + 1) }
        guard !pass.stop() else { return }
        room.wait()
        let start = queue.withLock { queue in
            queue.waiting.append((row, image))
            guard queue.running < jobs else { return false }
            queue.running += 1
            return true
        }
        if start { pass.workers.async(group: group) { [self] in work() } }
    }

    /// A worker: looks at waiting photos until none waits.
    private func work() {
        while let (row, image) = take() {
            room.signal()
            guard !pass.stop(), let looked = pass.look(image) else { continue }
            results.withLock { ($0.prints[row], $0.scores[row]) = (looked.fingerprint, PackedScore(looked.score)) }
        }
    }

    /// The next waiting photo, or nil (and this worker no longer counted).
    private func take() -> (row: Int, image: AcceptedImage)? {
        queue.withLock { queue in
            guard !queue.waiting.isEmpty else {
                queue.running -= 1
                return nil
            }
            return queue.waiting.removeFirst()  // of at most `jobs`
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
