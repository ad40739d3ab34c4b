import Dispatch
import Locking

/// `--group-by`: one header pass over the whole input (every header, many
/// at once, no pixel), the photos cut into groups by when they were taken
/// (`TakenGroups`), then one run per group that is this shard's (by the
/// FNV-1a hash of its name, as a folder is), each opening only its own
/// images. What the pass finds wrong is the job's to report, once (with
/// `--shard`, by shard 0 only, so that the shards' summaries add up).
final class GroupPasses: PassSource {
    private let configuration: CollageConfiguration
    private let groupBy: GroupBy
    private let makeRun: @Sendable (CollageConfiguration) -> CollageJob
    private let workers = DispatchQueue(label: "collage.headers", attributes: .concurrent)
    private struct State {
        var groups: ArraySlice<TakenGroup>?
        var stopped = false
    }
    private let state = Locked(State())

    init(_ configuration: CollageConfiguration, groupBy: GroupBy,
         makeRun: @escaping @Sendable (CollageConfiguration) -> CollageJob) {
        (self.configuration, self.groupBy, self.makeRun) = (configuration, groupBy, makeRun)
    }

    func stop() { state.withLock { $0.stopped = true } }

    func next(report: @escaping @Sendable (PipelineEvent) -> Void) -> (pass: Pass?, othersSkipped: Int) {
        if state.withLock({ $0.groups == nil }) {
            let groups = cut(report: report)
            state.withLock { $0.groups = groups[...] }
        }
        var others = 0
        while let group = state.withLock({ state in state.stopped ? nil : state.groups?.popFirst() }) {
            if let shard = configuration.shard, !shard.owns(folder: Array(group.name.utf8)) {
                others += 1
                continue
            }
            report(.group(name: group.name, images: group.images.count))
            let part = GroupPart(name: group.name, images: group.images.map(\.image))
            return (Pass(job: makeRun(configuration.groupPass(part)), group: group.name), others)
        }
        return (nil, others)
    }

    private func cut(report: @escaping @Sendable (PipelineEvent) -> Void) -> [TakenGroup] {
        let mutes = (configuration.shard?.index ?? 0) != 0
        let scanReport: @Sendable (PipelineEvent) -> Void = { event in
            if case .accepted = event {} else if mutes { return }
            report(event)
        }
        let walk = InputWalk(inputs: configuration.inputs, followLinks: configuration.followLinks,
                             nulSeparated: configuration.nulSeparated, recursive: configuration.recursive,
                             rules: configuration.scan, shouldStop: { [self] in state.withLock { $0.stopped } },
                             report: scanReport)
        let selection = Selection(probe: configuration.probe, report: scanReport)
        let images = HeaderPass.read(walk, selection: selection, jobs: configuration.jobs, workers: workers)
        guard !state.withLock({ $0.stopped }) else { return [] }
        return TakenGroups.cut(images, by: groupBy, order: configuration.sort, reverse: configuration.reverse)
    }
}
