import Vips

/// What comparing found for each changed pair, kept until its cell is
/// drawn, so that a pair is compared once: a difference holds only its
/// mask's bounding box (a few KiB for a moved button, 2 MiB for a whole
/// 1920x1080 screenshot changed). Within `limit` bytes; a pair past it is
/// compared again when its cell is drawn.
final class KeptDifferences: Sendable {
    let limit: Int
    private struct State {
        var byPair: [[UInt8]: Difference] = [:]
        var bytes = 0
    }
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Keeps `difference` for the pair named `relative`, if it fits.
    func keep(_ difference: Difference, for relative: PathName) {
        state.withLock { state in
            guard state.bytes + difference.byteCount <= limit, state.byPair[relative.bytes] == nil else { return }
            state.byPair[relative.bytes] = difference
            state.bytes += difference.byteCount
        }
    }

    /// The difference kept for `relative`, given up (nil when none was kept).
    func take(_ relative: PathName) -> Difference? {
        state.withLock { state in
            guard let difference = state.byPair.removeValue(forKey: relative.bytes) else { return nil }
            state.bytes -= difference.byteCount
            return difference
        }
    }
}
