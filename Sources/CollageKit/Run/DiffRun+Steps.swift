import Dispatch
import Glibc
@preconcurrency import OpenCombine
import Vips

/// The steps `DiffRun` performs for its machine: the checks, a sheet's
/// cells and save, what a saved sheet reports, the end.
extension DiffRun {
    /// The contract's checks, then BASELINE (missing: nothing to compare
    /// with, 66; not a folder: a usage error), then the output's lock.
    func checks() -> DiffMachine.Input {
        if let early = Preflight(configuration: configuration).check() {
            return .failedBefore(RunFailure(status: early.status, message: early.message ?? ""))
        }
        let baseline = settings.baseline
        var info = stat()
        guard baseline.withCString({ $0.map { stat($0, &info) } ?? -1 }) == 0 else {
            return .failedBefore(RunFailure(status: .noInput,
                                            message: "cannot read --diff BASELINE '\(baseline)': \(systemError(errno))"))
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            return .failedBefore(RunFailure(status: .usage,
                                            message: "--diff BASELINE '\(baseline)' is not a folder; name the folder of the images to compare with"))
        }
        var checked = configuration
        checked.inputs.append(.path(baseline))  // --skip-unchanged walks both trees again
        return OutputSession.open(checked, hub: hub, stop: { stop }) { session, unchanged in
            owned.withLock { ($0.session, $0.unchanged) = (session, unchanged) }
        }
    }

    /// Sheet `index` of the run: each cell rendered (its pair read again),
    /// then composed and written as any sheet. A pair that cannot be read
    /// now is reported and the sheet laid out again without it.
    func saveSheet(_ index: Int) {
        let cells = owned.withLock { $0.sheets[index] }
        let number = configuration.shard.map { index * $0.count + $0.index + 1 } ?? index + 1
        let path = configuration.naming.path(forSheet: number)
        let firstIndex = index * configuration.effectiveCap + 1
        let (layout, canvas, budget) = (configuration.layout, configuration.canvas, budget)
        let render = DiffCell(comparison: comparison, background: configuration.background,
                              font: configuration.captions.fontDescription)
        let saver = SheetSaver(composer: RunStages.composer(configuration, budget: budget, workers: workers),
                               writer: writer, book: nil, queue: saveQueue, instrumentation: instrumentation)
        saveQueue.async { [self] in
            var pairs = cells
            var tiles: [DecodedTile] = []
            while !pairs.isEmpty, tiles.isEmpty {
                let frames = layout.frames(for: pairs.map(DiffCell.shape), on: canvas)
                var failed: Set<Int> = []
                for (position, (pair, frame, result)) in renderCells(pairs, frames, render).enumerated() {
                    switch result {
                    case .success(let pixels):
                        var tile = DecodedTile(path: pair.path, header: ImageHeader(width: DiffCell.shape(pair).width,
                                                                                    height: DiffCell.shape(pair).height,
                                                                                    orientation: 1, format: "diff"),
                                               pixels: pixels, frame: frame, file: nil)
                        tile.comparison = pair
                        tiles.append(tile)
                    case .failure(let failure):
                        failed.insert(position)
                        queue.async { self.report(.failed(path: failure.path, error: failure.message)) }
                    }
                }
                if !failed.isEmpty {
                    pairs = pairs.indices.filter { !failed.contains($0) }.map { pairs[$0] }
                    tiles = []
                }
            }
            guard !tiles.isEmpty else {
                queue.async { self.feed(.saved(.nothing)) }
                return
            }
            let subscription = saver.save(tiles, sheet: number, firstIndex: firstIndex, to: path)
                .sink(receiveCompletion: { [self] completion in
                          if case .failure(let error) = completion {
                              queue.async { self.feed(.saved(error.code == .cancelled ? .cancelled : .failed(error.runFailure))) }
                          }
                      },
                      receiveValue: { [self] sheet in
                          queue.async {
                              self.owned.withLock { $0.saved = sheet }
                              self.feed(.saved(sheet == nil ? .nothing : .written(full: false)))
                          }
                      })
            owned.withLock { $0.saving = subscription }
        }
    }

    /// Each cell of a sheet rendered, at most `jobs` at once on the
    /// workers, each in the decode budget (it reads both pictures again).
    private func renderCells(_ pairs: [ComparedPair], _ frames: [Frame], _ render: DiffCell)
        -> [(ComparedPair, Frame, Result<PixelBuffer, DecodeFailure>)] {
        let results = Locked([Result<PixelBuffer, DecodeFailure>?](repeating: nil, count: pairs.count))
        let slots = DispatchSemaphore(value: max(1, configuration.jobs))
        let group = DispatchGroup()
        for (index, (pair, frame)) in zip(pairs, frames).enumerated() {
            slots.wait()
            workers.async(group: group) { [budget] in
                defer { slots.signal() }
                let cost = PairComparison.cost(pair, width: frame.image.width, height: frame.image.height)
                let result = budget.withBudget(cost) { render.render(pair, width: frame.image.width, height: frame.image.height) }
                results.withLock { $0[index] = result }
            }
        }
        group.wait()
        return results.withLock { done in pairs.indices.map { (pairs[$0], frames[$0], done[$0]!) } }
    }

    /// A sheet saved: where each pair's cell went, the file, the state.
    func publish(_ sheet: SavedSheet) {
        if configuration.keepsState, let stamp = FileStamp.of(sheet.record.output) {
            let output = RunState.Output(path: sheet.record.output, stamp: stamp, images: sheet.record.images)
            owned.withLock { $0.tally.outputs.append(output) }
        }
        for (index, (tile, frame)) in zip(sheet.composed.tiles, sheet.composed.frames).enumerated() {
            report(.placed(path: tile.path, sheet: sheet.record.sheet, index: index, rect: frame.image,
                           label: sheet.composed.labels?[index], origin: TileOrigin(focus: CropMode.centre.rawValue)))
        }
        report(.written(sheet.record))
    }

    /// Once: the JUnit report (when the pairs were all compared), the
    /// outcome, the state for the next run.
    func end(interruption: ExitStatus?, failure: RunFailure?, skipped: Bool) {
        owned.withLock { owned in
            owned.comparing?.cancel()
            (owned.comparing, owned.saving) = (nil, nil)
        }
        var failure = failure
        if interruption == nil, failure == nil, !skipped, let junit = settings.junit {
            let (pairs, unreadable) = owned.withLock { ($0.compared, $0.unreadable) }
            do {
                _ = try AtomicWriter(stem: junit).write(JUnitReport.xml(pairs, unreadable: unreadable,
                                                                        baseline: settings.baseline), to: junit)
            } catch {
                failure = error.runFailure(prefix: "--junit: ")
            }
        }
        if interruption == nil, failure == nil {
            for notice in owned.withLock({ $0.tally.summary.passedOver.notices }) { report(.notice(notice)) }
        }
        let tally = owned.withLock { $0.tally }
        var facts = OutcomeFacts(interruption: interruption, failure: failure, summary: tally.summary,
                                 nothingToDo: skipped ? nil : OutcomeRules.nothingToDo(tally))
        facts.differs = skipped
        let outcome = OutcomeRules.decide(facts)
        do {
            let session = owned.withLock { owned in
                defer { owned.session = nil }
                owned.outcome = outcome
                return owned.session
            }
            // Sheets made because something differs are what a later run may skip.
            let kept = outcome.status == .differs ? RunOutcome(status: .success, message: nil, summary: outcome.summary)
                                                  : outcome
            session?.keepState(kept, tally, logger: logger)
        }
        report(.finished(outcome))
        finished.signal()
    }
}
