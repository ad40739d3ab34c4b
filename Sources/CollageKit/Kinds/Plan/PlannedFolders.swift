import Locking

/// `--from-plan` of a `--per-folder` or `--group-by` plan: the folders (or
/// groups) come from the plan, not from a walk. Each folder's part of the
/// plan (between its `folder` and `folder_end` lines; a group's between
/// `group` and `group_end`) that is this shard's is one run from the plan,
/// starting where the part starts; the job's own lines (a folder whose
/// collage would replace another's, a folder with nothing eligible, what
/// the header pass of the groups found) are reported by the first shard.
final class PlannedFolderPasses: PassSource {
    private let configuration: CollageConfiguration
    private let plan: PathName
    private let makeRun: @Sendable (CollageConfiguration) -> CollageJob
    private struct State {
        let lines: PlanLines
        var stopped = false
    }
    private let state: Locked<State>

    init(_ configuration: CollageConfiguration, plan: PathName,
         makeRun: @escaping @Sendable (CollageConfiguration) -> CollageJob) {
        (self.configuration, self.plan, self.makeRun) = (configuration, plan, makeRun)
        state = Locked(State(lines: PlanLines(plan)))
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
            if let group = line.group {
                let images = skipPart()
                if let shard = configuration.shard, !shard.owns(folder: Array(group.utf8)) {
                    others += 1
                    continue
                }
                report(.group(name: group, images: images))
                let single = configuration.groupPass(GroupPart(name: group, images: nil), planOffset: offset)
                return (Pass(job: makeRun(single), group: group), others)
            }
            guard let folder = line.folder?.path, let root = line.root?.path else { continue }
            skipPart()
            let relative = FolderOutputs.relativePath(folder: folder, root: root)
            if let shard = configuration.shard, !shard.owns(folder: relative) {
                others += 1
                continue
            }
            let single = configuration.folderPass(folder, root: root, planOffset: offset)
            return (Pass(job: makeRun(single), folder: folder, root: root), others)
        }
        return (nil, others)
    }

    /// Past the folder's (or group's) part: its run reads it. The images on its sheets.
    @discardableResult
    private func skipPart() -> Int {
        state.withLock { state in
            var images = 0
            while let line = state.lines.next(), line.folder_end == nil, line.group_end == nil {
                images += line.images?.count ?? 0
            }
            return images
        }
    }
}
