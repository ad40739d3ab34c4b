import Locking
import Vips

/// What a changed pair's cell shows, made while comparing it held both
/// pictures whole, so that the cell is drawn without reading the pair
/// again: the difference (its mask's bounding box) and, for the cell's
/// panels, pictures no larger than the panels of the cell they were made
/// for (`width` x `height`).
struct KeptCell: Sendable {
    /// The difference; without its mask when the panels are kept (the
    /// page's marks are kept instead).
    let difference: Difference
    /// The cell's size the panels were made for.
    var width = 0, height = 0
    /// Baseline | current | difference: the region's, or the whole
    /// pictures' (empty: only the difference is kept).
    var panels: [FullPicture] = []
    /// The current page for the small page beside a region.
    var page: KeptPage?

    /// The bytes it holds.
    var byteCount: Int {
        difference.byteCount + panels.reduce(0) { $0 + $1.byteCount } + (page?.byteCount ?? 0)
    }

    /// Whether a cell `width` x `height` can be drawn from it: its panels
    /// were made for a cell at least that large.
    func draws(width: Int, height: Int) -> Bool {
        !panels.isEmpty && width <= self.width && height <= self.height
    }
}

/// What comparing found for each changed pair, kept until its cell is
/// drawn, so that a pair is decoded and compared once. Within `limit`
/// bytes, and, once a run accounts for them (`account`), within a third
/// of its decode budget, where they count as used while held (and as held
/// tiles in the run's instrumentation): a pair past that is read and
/// compared again when its cell is drawn.
final class KeptDifferences: Sendable {
    private struct State {
        var limit: Int
        var byPair: [[UInt8]: (cell: KeptCell, held: HeldTile?)] = [:]
        var bytes = 0
        var budget: DecodeBudget?
        var instrumentation: (any StageInstrumentation)?
    }
    private let state: Locked<State>

    init(limit: Int) {
        state = Locked(State(limit: limit))
    }

    /// Counts what is kept in `budget` and `instrumentation` from now on.
    func account(to budget: DecodeBudget, instrumentation: (any StageInstrumentation)?) {
        state.withLock { state in
            (state.budget, state.instrumentation) = (budget, instrumentation)
            state.limit = min(state.limit, budget.limit / 3)
        }
    }

    /// Keeps `cell` for the pair named `relative`, if it fits.
    func keep(_ cell: KeptCell, for relative: PathName) {
        let bytes = cell.byteCount
        state.withLock { state in
            guard state.bytes + bytes <= state.limit, state.byPair[relative.bytes] == nil else { return }
            state.budget?.hold(bytes)
            state.byPair[relative.bytes] = (cell, state.instrumentation?.holding(tileBytes: bytes))
            state.bytes += bytes
        }
    }

    /// What was kept for `relative`, given up (nil when nothing was kept).
    func take(_ relative: PathName) -> KeptCell? {
        let (kept, budget) = state.withLock { state in
            let kept = state.byPair.removeValue(forKey: relative.bytes)
            if let kept { state.bytes -= kept.cell.byteCount }
            return (kept, state.budget)
        }
        guard let kept else { return nil }
        budget?.letGo(kept.cell.byteCount)
        return kept.cell  // its held count drops as `kept` goes
    }

    /// Whether a cell `width` x `height` of `relative` will be drawn from what is kept.
    func draws(_ relative: PathName, width: Int, height: Int) -> Bool {
        state.withLock { $0.byPair[relative.bytes]?.cell.draws(width: width, height: height) ?? false }
    }

    /// Lets go of what was kept for every pair but those named in `wanted`.
    func keepOnly(_ wanted: Set<[UInt8]>) {
        let names = state.withLock { $0.byPair.keys.filter { !wanted.contains($0) } }
        for name in names { _ = take(PathName(bytes: name)) }
    }
}
