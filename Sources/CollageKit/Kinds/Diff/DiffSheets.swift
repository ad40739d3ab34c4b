import Dispatch
import FileFacts
import Glibc
@preconcurrency import OpenCombine
import Locking
import Vips

/// The sheets of a `--diff BASELINE` run:
///
///     pairs (walk both) ─► open (bytes, headers) ─► compare (≤ jobs, in the
///     decode budget, in order) ─► sort, cut ─► each sheet's cells, when asked
///
/// Every pair is compared before the first sheet, since the sheets show the
/// most changed first; a sheet's cells are rendered only when the sink asks
/// for it (from what comparing kept for each cell, `KeptCell`), so one
/// sheet's cells are held at a time.
/// At the end, `--junit` reports every pair.
final class DiffSheets: SheetSource {
    let configuration: CollageConfiguration
    let settings: DiffSettings
    let comparison: PairComparison
    /// `--diff-images DIR`.
    let pictures: DiffPictures?

    struct Compared {
        /// Every pair compared, in the walk's order, and those that could not be read.
        var pairs: [ComparedPair] = []
        var unreadable: [JUnitReport.Unreadable] = []
        /// Without `--sheets`: the differing pairs the one sheet left out.
        var leftOut = 0
        /// Each change's group number, in the order first seen.
        var groups: [UInt64: Int] = [:]
        /// Where the run's events go (`--approve` tells each file at the end).
        var report: (@Sendable (PipelineEvent) -> Void)?
        /// `--approve`: every pair asked for became the baseline.
        var approvedAll = false
    }
    let compared = Locked(Compared())
    /// How many cells a sheet of this run has at most (its pairs, up to `--max`).
    private let cellsPerSheet: Locked<Int>

    init(configuration: CollageConfiguration, instrumentation: RunInstrumentation? = nil) {
        precondition(configuration.diff != nil, "a diff run needs --diff's settings")
        self.configuration = configuration
        settings = configuration.diff!
        var comparison = PairComparison(probe: configuration.probe, settings: configuration.diff!,
                                        instrumentation: instrumentation)
        comparison.discAbove = configuration.decodeMemoryBudget / 16 * 9
        pictures = configuration.diff!.diffImages.map(DiffPictures.init)
        if let pictures = pictures { comparison.pictures = { pictures.write($0, $1) } }
        (comparison.keepsCells, comparison.bothSidesAtOnce) = (!configuration.dryRun, configuration.jobs > 1)
        let (layout, canvas, cells) = (configuration.layout, configuration.canvas, Locked(1))
        cellsPerSheet = cells
        comparison.keeping = { pair, before, after, difference in
            // For the largest frame the pair's cell would have on a sheet of as many cells like it,
            let frames = layout.frames(for: Array(repeating: DiffCell.shape(pair), count: max(1, cells.withLock { $0 })),
                                       on: canvas)
            guard let frame = frames.max(by: { $0.image.width * $0.image.height < $1.image.width * $1.image.height })
            else { return nil }
            // A quarter larger: a justified row of cells of other shapes may make it larger than that.
            return try? DiffCell.kept(pair, before, after, difference, width: frame.image.width * 5 / 4,
                                      height: frame.image.height * 5 / 4)
        }
        self.comparison = comparison
    }

    /// BASELINE: missing is nothing to compare with (66); a file, only with
    /// one INPUT file (`--diff A.png B.png`), else a usage error.
    func check() -> RunFailure? {
        let baseline = settings.baseline
        var info = stat()
        guard baseline.withCString({ $0.map { stat($0, &info) } ?? -1 }) == 0 else {
            return RunFailure(status: .noInput, message: "cannot read --diff BASELINE '\(baseline)': \(systemError(errno))")
        }
        if let page = settings.html, let failure = Finishing.cannotWrite(page) { return failure }
        if let failure = checkDecisions() { return failure }
        guard (info.st_mode & S_IFMT) == S_IFDIR || DiffPairing.twoFiles(configuration.inputs, baseline: baseline) else {
            return RunFailure(status: .usage,
                              message: "--diff BASELINE '\(baseline)' is not a folder; name the folder of the images to "
                                  + "compare with, or compare two files (--diff A.png B.png)")
        }
        return nil
    }

    /// `--skip-unchanged` walks both trees again.
    func stateConfiguration(_ configuration: CollageConfiguration) -> CollageConfiguration {
        var checked = configuration
        checked.inputs.append(.path(settings.baseline))
        return checked
    }

    /// Comparing holds both pictures whole: their buffers are reused from
    /// pair to pair, but for heavy pairs'.
    var allocator: AllocatorPolicy { .reuseUnlessHeavy }

    func sheets(_ context: SheetContext) -> AnyPublisher<CutSheet, Never> {
        Vips.reuseLargeBuffers()
        let (configuration, settings, comparison) = (configuration, settings, comparison)
        let report = context.report
        compared.withLock { $0.report = report }
        let cells = DispatchQueue(label: "collage.cells")
        return Deferred { [self] () -> AnyPublisher<PairOutcome, Never> in
            let pairing = DiffPairing(inputs: configuration.inputs, baseline: settings.baseline,
                                      followLinks: configuration.followLinks,
                                      nulSeparated: configuration.nulSeparated, rules: configuration.scan)
            let (all, walked) = pairing.pairs(shouldStop: context.stop, report: report)
            if configuration.keepsState {
                context.consider(walked)  // stamped by the walk's own stat
            }
            let shard = configuration.shard
            let pairs = all.filter { shard?.owns(folder: $0.relative.bytes) ?? true }
            cellsPerSheet.withLock { $0 = min(configuration.effectiveCap, pairs.count) }
            comparison.kept.account(to: context.budget, instrumentation: context.instrumentation)
            return Publishers.Sequence<[DiffPair], Never>(sequence: pairs)
                .map { comparison.open($0, report: report) }
                .orderedParallelMap(limits: configuration.windowLimits, budget: context.budget,
                                    workers: context.workers, queue: context.queue,
                                    cost: PairComparison.cost) { comparison.compare($0) }
                .handleEvents(receiveOutput: { [self] in received($0, report: report) })
                .eraseToAnyPublisher()
        }
        // Every pair compared, then the sheets, one when asked. The pairs'
        // large buffers, kept in the arenas for the next pair, are given
        // back first: else they stay beside the sheets, which are drawn
        // after them (at 1280x8000 they were 60 MiB of a 160-180 MiB peak).
        .reduce(()) { _, _ in () }
        .flatMap(maxPublishers: .max(1)) { [self] in
            Vips.memoryPressure(tight: false)
            return Publishers.Sequence<[Cut], Never>(sequence: cut())
        }
        .flatMap(maxPublishers: .max(2)) { [self] cut in
            Deferred {
                Future<CutSheet, Never> { promise in
                    nonisolated(unsafe) let promise = promise  // called once, on the shell's queue
                    cells.async {
                        let sheet = self.sheet(cut, context)
                        context.queue.async { promise(.success(sheet)) }
                    }
                }
            }
        }
        .eraseToAnyPublisher()
    }

    /// One sheet of differing pairs, and its place in the run.
    struct Cut: Sendable {
        let pairs: [ComparedPair]
        let place: SheetPlace
    }

    /// The differing pairs in the sheets' order, in sheets of `--max`: all
    /// of them with `--sheets`, else the first; none when no pair fails
    /// (exit status 0 writes nothing), nor with `--dry-run`. With `--shard`,
    /// sheet `k` of this shard's pairs is the run's `k * N + I + 1`-th.
    private func cut() -> [Cut] {
        compared.withLock { compared in
            guard !configuration.dryRun, compared.pairs.contains(where: \.fails) else {
                comparison.kept.keepOnly([])
                return []
            }
            let differing = Self.grouped(compared.pairs.filter { $0.status != .unchanged }
                .sorted(by: ComparedPair.moreChanged))
            let cap = configuration.effectiveCap
            var sheets = stride(from: 0, to: differing.count, by: cap).map {
                Array(differing[$0..<min($0 + cap, differing.count)])
            }
            if !configuration.sheets, sheets.count > 1 {
                compared.leftOut = differing.count - cap
                sheets = [sheets[0]]
            }
            comparison.kept.keepOnly(Set(sheets.joined().map(\.relative.bytes)))  // what no cell draws goes now
            return sheets.enumerated().map { index, pairs in
                let number = configuration.shard.map { index * $0.count + $0.index + 1 } ?? index + 1
                return Cut(pairs: pairs, place: SheetPlace(number: number, firstIndex: index * cap + 1))
            }
        }
    }

    /// A sheet's cells rendered (from what was kept, or each pair read again). A pair that cannot be
    /// read now is reported and the sheet laid out again without it; a sheet
    /// all of whose pairs fail is empty, and the run goes on to the next.
    private func sheet(_ cut: Cut, _ context: SheetContext) -> CutSheet {
        let render = DiffCell(comparison: comparison, background: configuration.background,
                              font: configuration.captions.fontDescription)
        var pairs = cut.pairs
        while !pairs.isEmpty {
            let frames = configuration.layout.frames(for: pairs.map(DiffCell.shape), on: configuration.canvas)
            var items: [SheetItem] = []
            var failed: Set<Int> = []
            for (position, (pair, frame, result)) in renderCells(pairs, frames, render, context).enumerated() {
                switch result {
                case .success(let pixels):
                    let shape = DiffCell.shape(pair)
                    let header = ImageHeader(width: shape.width, height: shape.height, orientation: 1, format: "diff")
                    var tile = DecodedTile(path: pair.path, header: header, pixels: pixels, frame: frame, file: nil)
                    tile.comparison = pair
                    tile.focus = TileFocus(focus: CropMode.centre.rawValue)
                    items.append(SheetItem(path: pair.path, header: header, tile: tile))
                case .failure(let failure):
                    failed.insert(position)
                    context.queue.async { context.report(.failed(path: failure.path, error: failure.message)) }
                }
            }
            guard !failed.isEmpty else { return CutSheet(items: items, place: cut.place) }
            pairs = pairs.indices.filter { !failed.contains($0) }.map { pairs[$0] }
        }
        return CutSheet(items: [], place: cut.place)
    }

    /// Each cell of a sheet rendered, at most `jobs` at once on the
    /// workers, each in the decode budget (its panels, or both pictures read again).
    private func renderCells(_ pairs: [ComparedPair], _ frames: [Frame], _ render: DiffCell, _ context: SheetContext)
        -> [(ComparedPair, Frame, Result<PixelBuffer, DecodeFailure>)] {
        let results = Locked([Result<PixelBuffer, DecodeFailure>?](repeating: nil, count: pairs.count))
        let slots = DispatchSemaphore(value: max(1, configuration.jobs))
        let group = DispatchGroup()
        let budget = context.budget
        for (index, (pair, frame)) in zip(pairs, frames).enumerated() {
            slots.wait()
            context.workers.async(group: group) {
                defer { slots.signal() }
                let cost = render.comparison.cost(pair, width: frame.image.width, height: frame.image.height)
                let result = budget.withBudget(cost) { render.render(pair, width: frame.image.width, height: frame.image.height) }
                results.withLock { $0[index] = result }
            }
        }
        group.wait()
        return results.withLock { done in pairs.indices.map { (pairs[$0], frames[$0], done[$0]!) } }
    }

    func leftOutNotice(_ tally: Tally) -> String? {
        let left = compared.withLock { $0.leftOut }
        return left > 0 ? "\(left) more differing image(s) left out of the sheet; --sheets shows them all" : nil
    }

    /// Sheets found unchanged were made because something differed;
    /// `--approve`d differences are settled.
    func adjust(_ facts: inout OutcomeFacts, skipped: Bool) {
        facts.approved = compared.withLock { $0.approvedAll }
        guard skipped else { return }
        facts.nothingToDo = nil
        facts.differs = true
    }

    /// Sheets made because something differs are what a later run may skip.
    func recorded(_ outcome: RunOutcome) -> RunOutcome {
        outcome.status == .differs ? RunOutcome(status: .success, message: nil, summary: outcome.summary) : outcome
    }
}
