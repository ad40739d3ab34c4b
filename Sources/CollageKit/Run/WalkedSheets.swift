import Locking
@preconcurrency import OpenCombine

/// The sheets of a collage run: the inputs walked and selected as they
/// come (or every header read first and sorted, a group's images, a plan's
/// sheets, a shard's share of them), decoded at most `jobs` at once, cut
/// into sheets, the one way the run's configuration says (`RunStages.way`).
final class WalkedSheets: SheetSource {
    let configuration: CollageConfiguration

    /// The walk and the selection, kept for the notice of what the cap left
    /// out; let go when the run ends.
    private struct Stages {
        var walk: SharedWalk?
        var selection: Selection?
    }
    private let stages = Locked(Stages())

    init(configuration: CollageConfiguration) {
        self.configuration = configuration
    }

    func sheets(_ context: SheetContext) -> AnyPublisher<CutSheet, Never> {
        var stages = RunStages(configuration: configuration, instrumentation: context.instrumentation,
                               budget: context.budget, workers: context.workers, queue: context.queue,
                               stop: context.stop, report: context.report,
                               consider: { context.consider([$0]) }, decodeFailed: context.decodeFailed)
        stages.previous = context.previous
        // From a plan, nothing is walked: what the cap left out was told by the plan.
        // Nor for a group, whose images the job's header pass found.
        let walk = configuration.fromPlan == nil && configuration.group == nil ? stages.walk : nil
        if let images = configuration.group?.images {
            context.consider(images.map { RunState.Considered(path: $0.path, stamp: $0.stamp, listed: $0.sidecars) })
        }
        self.stages.withLock { $0 = Stages(walk: walk, selection: stages.selection) }
        return stages.sheets()
    }

    func leftOutNotice(_ tally: Tally) -> String? {
        // --pick chose from every image: its own line (-v) says what it stacked and left out.
        if configuration.pick { return nil }
        if let images = configuration.group?.images {
            let known = images.count - tally.summary.used - tally.summary.failed
            return SharedWalk.leftOut(known, cap: configuration.effectiveCap)
        }
        let (walk, selection) = stages.withLock { ($0.walk, $0.selection) }
        guard let walk, let selection else { return nil }
        return walk.leftOutNotice(tally, probe: selection.probe, cap: configuration.effectiveCap)
    }

    func close() {
        stages.withLock { $0 = Stages() }
    }
}

extension RunStages {
    /// `--sheets` placed by count: the accepted images decoded to their
    /// slots (`decode`) at most `jobs` at once, ahead into the next sheets
    /// by the decode window, then cut.
    func decodedAhead(_ accepted: AnyPublisher<AcceptedImage, Never>, decode: Decode) -> AnyPublisher<CutSheet, Never> {
        cutDecoded(accepted
            .orderedParallelMap(limits: configuration.windowLimits, budget: budget, workers: workers, queue: queue,
                                cost: { Decode.cost($0.header, to: decode.slot(of: $0)) }) { decode($0) }
            .eraseToAnyPublisher())
    }
}
