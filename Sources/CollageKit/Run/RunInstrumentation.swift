import Locking

/// Counters a run keeps about itself, for tests and `--verbose`: how far
/// the scan got (also while each sheet was being saved), how many decodes
/// ran at once, how many decoded tiles (and their bytes) the run held at
/// once. A test may
/// hold the sink at each save (a gate it opens one sheet at a time) to
/// prove that nothing upstream runs ahead while a sheet is being written.
final class RunInstrumentation: StageInstrumentation {
    struct Counts: Equatable {
        /// Inputs the walk has emitted.
        var scanned = 0
        /// How many times each folder was read (`opendir`), by its path's bytes.
        var listings: [[UInt8]: Int] = [:]
        var decoding = 0
        /// Decodes begun in all.
        var decodes = 0
        var peakDecoding = 0
        /// Saves begun so far, and whether one is in progress.
        var saves = 0
        var saving = false
        /// The most inputs scanned while save n was in progress (index n-1).
        var scannedBySave: [Int] = []
        /// Decoded tiles alive now, and the most at once.
        var heldTiles = 0
        var peakHeldTiles = 0
        /// Their pixels' bytes, now and the most at once.
        var heldTileBytes = 0
        var peakHeldTileBytes = 0
    }

    /// `Locked`: the decodes contend for it (see `Locked` on ThreadSanitizer).
    private let counts = Locked(Counts())
    private let hold = Locked<(@Sendable (Int) -> Void)?>(nil)
    private let holdReported = Locked<(@Sendable (Int) -> Void)?>(nil)

    var snapshot: Counts { counts.withLock { $0 } }

    /// `body` runs on the save queue before each sheet is composed.
    func holdBeforeSave(_ body: @escaping @Sendable (Int) -> Void) { hold.withLock { $0 = body } }

    func beforeSave(_ sheet: Int) {
        counts.withLock { counts in
            counts.saves += 1
            counts.saving = true
            counts.scannedBySave.append(counts.scanned)
        }
        hold.withLock { $0 }?(sheet)
    }

    /// The save's work is done; the run has not asked for more yet.
    func afterSave() { counts.withLock { $0.saving = false } }

    /// `body` runs on the save queue once each sheet is handed to the run,
    /// before the save lets go of what it ran: a test may hold it there
    /// while the run works on the next sheet.
    func holdAfterReport(_ body: @escaping @Sendable (Int) -> Void) { holdReported.withLock { $0 = body } }

    func reported(_ sheet: Int) { holdReported.withLock { $0 }?(sheet) }

    func scanned() {
        counts.withLock { counts in
            counts.scanned += 1
            if counts.saving { counts.scannedBySave[counts.saves - 1] = counts.scanned }
        }
    }

    /// The walk read the folder at `path`.
    func listed(_ path: PathName) {
        counts.withLock { $0.listings[path.bytes, default: 0] += 1 }
    }

    func decoding<R>(_ body: () throws -> R) rethrows -> R {
        counts.withLock { counts in
            counts.decoding += 1
            counts.decodes += 1
            counts.peakDecoding = max(counts.peakDecoding, counts.decoding)
        }
        defer { counts.withLock { $0.decoding -= 1 } }
        return try body()
    }

    func holding(tileBytes bytes: Int) -> HeldTile {
        held(1, bytes: bytes)
        return HeldTile { [self] in held(-1, bytes: bytes) }
    }

    private func held(_ change: Int, bytes: Int) {
        counts.withLock { counts in
            counts.heldTiles += change
            counts.peakHeldTiles = max(counts.peakHeldTiles, counts.heldTiles)
            counts.heldTileBytes += change * bytes
            counts.peakHeldTileBytes = max(counts.peakHeldTileBytes, counts.heldTileBytes)
        }
    }
}
