import Glibc
import Logging
@preconcurrency import OpenCombine
import Synchronization

/// What a job does once all its collages are made, for CI and archives:
/// `--html` writes the page of the sheets, `--fail-on-flag` turns flags
/// into status 65. It wraps any job (one run, one per folder), watches its
/// events (the records the page needs, the flags) as they pass, and ends
/// with its own `finished`: the page is written before the summary, so the
/// summary's status is the process's, a failed write included.
public final class FinishingJob: CollageJob, Sendable {
    private let job: CollageJob
    private let configuration: CollageConfiguration
    private let hub = EventHub()
    private let records = Mutex(PageRecords())
    private let stopped = Mutex(false)

    public init(_ job: CollageJob, configuration: CollageConfiguration) {
        self.job = job
        self.configuration = configuration
    }

    public var events: AnyPublisher<PipelineEvent, Never> { hub.events }

    public func interrupt(_ status: ExitStatus) {
        stopped.withLock { $0 = true }
        job.interrupt(status)
    }

    public func run() -> RunOutcome {
        if let page = configuration.htmlPage, let problem = Self.cannotWrite(page) {
            return finish(RunOutcome(status: .cannotCreateOutput, message: problem, summary: Summary()))
        }
        let outcome = hub.forwarding(job, keep: { [self] event in
            records.withLock { $0.note(event) }
            return true
        })
        return finish(conclude(outcome))
    }

    private func finish(_ outcome: RunOutcome) -> RunOutcome {
        hub.send(.finished(outcome))
        return outcome
    }

    /// The job's outcome, then the page (only after a run that made its
    /// collages: a failed run never replaces an earlier page), then the flags.
    func conclude(_ outcome: RunOutcome) -> RunOutcome {
        let finished = [.success, .someInputsFailed].contains(outcome.status) && !stopped.withLock { $0 }
        let sheets = records.withLock { $0.sheets }
        if finished, let page = configuration.htmlPage, !sheets.isEmpty {
            let links = PageLinks(page: page)
            let bytes = HTMLIndex.page(sheets, link: links.href)
            do throws(OutputError) {
                _ = try AtomicWriter().write(bytes, to: page)
            } catch {
                let status: ExitStatus = switch error.code {
                case .cannotCreate: .cannotCreateOutput
                case .ioError: .ioError
                case .cancelled: .interrupted
                }
                return RunOutcome(status: status, message: "cannot write the page: \(error)", summary: outcome.summary)
            }
        }
        let flagged = outcome.summary.flagged
        if configuration.failOnFlag, flagged > 0, outcome.status == .success {
            return RunOutcome(status: .someInputsFailed,
                              message: "\(flagged) image(s) flagged (each reported above); --fail-on-flag makes that a failure",
                              summary: outcome.summary)
        }
        return outcome
    }

    /// Why the page's folder cannot take the page, checked before any image is read.
    static func cannotWrite(_ page: PathName) -> String? {
        let folder = page.directory
        guard folder.withCString({ $0.map { access($0, W_OK | X_OK) } ?? -1 }) != 0 else { return nil }
        let code = errno
        let hint = code == ENOENT ? " (create the folder first)" : ""
        return "cannot write the page to folder '\(folder)': \(String(cString: strerror(code)))\(hint)"
    }
}

/// The sheets of a run, from its events in order: a sheet's `placed`
/// events come just before its `written` one.
struct PageRecords {
    var sheets: [HTMLIndex.Sheet] = []
    private var placed: [HTMLIndex.Tile] = []

    mutating func note(_ event: PipelineEvent) {
        switch event {
        case .placed(let path, _, _, let rect, let label, _):
            placed.append(HTMLIndex.Tile(path: path, rect: rect, caption: label))
        case .written(let sheet):
            sheets.append(HTMLIndex.Sheet(output: sheet.output, number: sheet.sheet, width: sheet.width,
                                          height: sheet.height, tiles: placed, images: sheet.images))
            placed = []
        case .unchanged(let output, let images):
            sheets.append(HTMLIndex.Sheet(output: output, number: nil, width: nil, height: nil, tiles: [],
                                          images: images))
        default:
            break
        }
    }
}
