/// What the stages say about their own work while they do it: how far the
/// scan got, decodes running, decoded tiles held, saves begun and done. The
/// stages are handed one and never know who counts; a run's counters
/// (`RunInstrumentation`) are what tests and `--verbose` read.
protocol StageInstrumentation: Sendable {
    /// The walk emitted one more input.
    func scanned()
    /// `body` is one decode; it runs while the decode is counted as running.
    func decoding<R>(_ body: () throws -> R) rethrows -> R
    /// A decoded tile of `bytes` is held for as long as the returned value lives.
    func holding(tileBytes bytes: Int) -> HeldTile
    /// Sheet `sheet` is about to be composed and written.
    func beforeSave(_ sheet: Int)
    /// The save's work is done; the run has not asked for more yet.
    func afterSave()
    /// Sheet `sheet` was handed to the run, which may now ask for the next
    /// one; the save's thread has not yet let go of what it ran.
    func reported(_ sheet: Int)
}

/// A decoded tile counted as held: the count drops when this goes.
final class HeldTile: Sendable {
    private let release: @Sendable () -> Void

    init(release: @escaping @Sendable () -> Void) {
        self.release = release
    }

    deinit { release() }
}
