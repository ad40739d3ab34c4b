import Synchronization

/// Counters a run keeps about itself, for tests and `--verbose`: how far
/// the scan got, how many decodes ran at once. `beforeSave` lets a test hold
/// the sink (a gate it opens one sheet at a time) to prove that nothing
/// upstream runs ahead while a sheet is being written.
final class RunInstrumentation: @unchecked Sendable {
    struct Counts: Equatable {
        /// Inputs the walk has emitted.
        var scanned = 0
        var decoding = 0
        var peakDecoding = 0
        var sheets = 0
    }

    private let counts = Mutex(Counts())
    /// Called on the save queue before each sheet is composed.
    var beforeSave: ((Int) -> Void)?

    var snapshot: Counts { counts.withLock { $0 } }

    func scanned() { counts.withLock { $0.scanned += 1 } }

    func decoding<R>(_ body: () throws -> R) rethrows -> R {
        counts.withLock { counts in
            counts.decoding += 1
            counts.peakDecoding = max(counts.peakDecoding, counts.decoding)
        }
        defer { counts.withLock { $0.decoding -= 1 } }
        return try body()
    }
}
