import Synchronization

/// `--from-plan` of a `--per-folder` plan: the folders come from the plan,
/// not from a walk. Each folder's part of the plan (between its `folder`
/// and `folder_end` lines) that is this shard's is one run from the plan,
/// starting where the part starts; the job's own lines (a folder whose
/// collage would replace another's, a folder with nothing eligible) are
/// reported by the first shard.
final class PlannedFolderPasses: PassSource {
    private let configuration: CollageConfiguration
    private let plan: PathName
    private let makeRun: @Sendable (CollageConfiguration) -> CollageJob
    private struct State {
        let lines: PlanLines
        var stopped = false
    }
    private let state: Mutex<State>

    init(_ configuration: CollageConfiguration, plan: PathName,
         makeRun: @escaping @Sendable (CollageConfiguration) -> CollageJob) {
        (self.configuration, self.plan, self.makeRun) = (configuration, plan, makeRun)
        state = Mutex(State(lines: PlanLines(plan)))
    }

    func stop() { state.withLock { $0.stopped = true } }

    func next(report: @escaping @Sendable (PipelineEvent) -> Void) -> (pass: Pass?, othersSkipped: Int) {
        let reportsJob = (configuration.shard?.index ?? 0) == 0
        var others = 0
        while let (line, offset) = state.withLock({ state in state.stopped ? nil : state.lines.next().map { ($0, state.lines.offset) } }) {
            if let event = line.scanEvent {
                if reportsJob { report(event) }
                continue
            }
            guard let folder = line.folder?.path, let root = line.root?.path else { continue }
            skipPart()
            let relative = FolderOutputs.relativePath(folder: folder, root: root)
            if let shard = configuration.shard, !shard.owns(folder: relative) {
                others += 1
                continue
            }
            var single = configuration.folderPass(folder, root: root)
            single.fromPlanOffset = offset
            return (Pass(job: makeRun(single), folder: folder, root: root), others)
        }
        return (nil, others)
    }

    /// Past the folder's part: its run reads it.
    private func skipPart() {
        state.withLock { state in
            while let line = state.lines.next(), line.folder_end == nil {}
        }
    }
}
