import FoundationEssentials
import Glibc
import Locking

/// `--plan FILE`: the job is a `--dry-run` (headers only); each event that
/// a run decides before decoding becomes a line of the plan as it comes
/// (what the scan found, each sheet with its images' stamps, frames and
/// captions), and the plan is put in place only when the job planned
/// something. See `PlanFormat`.
final class PlanFinishing: JobFinishing {
    private let path: PathName
    private let header: PlanLine
    /// `--pick`: how many photos each picked image stands for, recorded for `{stack}` in the shards.
    private let stacks: StackSizes?
    private struct State {
        var writer: PlanWriter?
        /// Images on the sheets so far: the next sheet's first index is one more.
        var used = 0
    }
    private let state = Locked(State())

    init(path: PathName, configuration: CollageConfiguration, perFolder: Bool) {
        self.path = path
        var header = PlanLine()
        header.collage_plan = PlanFormat.version
        header.configuration = configuration.planned
        header.directory = PlanPath(PlanFile.workingDirectory)
        header.kind = perFolder ? "folders" : configuration.groupBy != nil ? "groups"
            : configuration.sheets ? "sheets" : "collage"
        header.max = configuration.effectiveCap
        self.header = header
        stacks = configuration.captions.stacks
    }

    /// The temporary file the plan is written to, made now.
    func prepare() -> RunFailure? {
        do throws(OutputError) {
            let writer = try PlanWriter(path: path, header: header)
            state.withLock { $0.writer = writer }
            return nil
        } catch {
            return error.runFailure
        }
    }

    func note(_ event: PipelineEvent) {
        var line = PlanLine()
        switch event {
        case .rejected(let path, let reason, let detail):
            (line.event, line.path, line.reason, line.detail) = ("rejected", PlanPath(path), reason.rawValue, detail)
        case .failed(let path, let error):
            (line.event, line.path, line.detail) = ("failed", PlanPath(path), error)
        case .paired(let path, let with):
            (line.event, line.path, line.with) = ("paired", PlanPath(path), PlanPath(with))
        case .passedOver(let path, let kind):
            (line.event, line.path, line.reason) = ("passed-over", PlanPath(path), kind.rawValue)
        case .notice(let text):
            // What a run says of its counts at its end, each run from the plan says again.
            guard !PassedOver.isNotice(text) else { return }
            (line.event, line.detail) = ("notice", text)
        case .planned(let sheet):
            line = sheetLine(sheet)
        default:
            return
        }
        state.withLock { $0.writer }?.add(line)
    }

    private func sheetLine(_ sheet: PlannedSheet) -> PlanLine {
        var line = PlanLine()
        line.sheet = sheet.sheet
        line.first = state.withLock { state in
            defer { state.used += sheet.images.count }
            return state.used + 1
        }
        (line.output, line.width, line.height) = (PlanPath(sheet.output), sheet.width, sheet.height)
        line.images = sheet.images.indices.map { index in
            let path = sheet.images[index]
            // A file gone since its header was read is stamped so that no run takes it.
            var image = PlanImage(path: path, stamp: FileStamp.of(path) ?? FileStamp(size: -1, modified: 0),
                                  rect: index < sheet.rects.count ? sheet.rects[index] : TileRect(x: 0, y: 0, width: 0, height: 0),
                                  label: sheet.labels?[index])
            if let members = stacks?.members(path), members > 1 { image.stack = members }
            return image
        }
        return line
    }

    /// `--per-folder`: a folder's lines are between these two, its sheets numbered from 1.
    func passStarts(_ pass: Pass) {
        var line = PlanLine()
        if let folder = pass.folder {
            (line.folder, line.root) = (PlanPath(folder), pass.root.map(PlanPath.init))
        } else if let group = pass.group {
            line.group = group  // `--group-by`: likewise, a group's
        } else {
            return
        }
        state.withLock { $0.used = 0 }
        state.withLock { $0.writer }?.add(line)
    }

    func passEnds(_ pass: Pass) {
        guard pass.folder != nil || pass.group != nil else { return }
        var line = PlanLine()
        (line.folder_end, line.group_end) = (pass.folder.map(PlanPath.init), pass.group)
        state.withLock { $0.writer }?.add(line)
    }

    func finish() -> RunFailure? { state.withLock { $0.writer }?.commit() }

    func abandon() { state.withLock { $0.writer }?.discard() }
}
