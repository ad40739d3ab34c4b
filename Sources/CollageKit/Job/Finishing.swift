import Glibc
import Locking

/// What a job does once its passes are over: it hears every event of the
/// job, and is asked to finish only when the job made its collages (or
/// its plan); otherwise it is abandoned.
protocol JobFinishing: Sendable {
    /// Gets ready before any image is read; why it could not finish, if so.
    func prepare() -> RunFailure?
    func note(_ event: PipelineEvent)
    func finish() -> RunFailure?
    /// The job ended (after `finish`, or without it).
    func abandon()
    /// A pass begins and ends (`--plan` marks each folder's part).
    func passStarts(_ pass: Pass)
    func passEnds(_ pass: Pass)
}

extension JobFinishing {
    func passStarts(_ pass: Pass) {}
    func passEnds(_ pass: Pass) {}
}

/// `--html`: the page of the sheets the job wrote (or found unchanged).
final class PageFinishing: JobFinishing {
    let page: PathName
    private let records: Locked<PageRecords>

    /// `cells`: where a `--diff` cell's baseline panel ends (the diff's own
    /// drawing knows), for a job whose pairs are compared.
    init(page: PathName, cells: PageRecords.CellSplit? = nil) {
        self.page = page
        records = Locked(PageRecords(split: cells))
    }

    func prepare() -> RunFailure? { Finishing.cannotWrite(page) }
    func note(_ event: PipelineEvent) { records.withLock { $0.note(event) } }
    func finish() -> RunFailure? { Finishing.writePage(records.withLock { $0.sheets }, to: page) }
    func abandon() {}
}

/// What a job does once its passes are over, for CI and archives: `--html`
/// writes the page of the sheets the job wrote (or found unchanged), from
/// the records its events left.
enum Finishing {
    /// The page, written atomically; the failure that ends the job if it cannot be.
    static func writePage(_ sheets: [HTMLIndex.Sheet], to page: PathName) -> RunFailure? {
        guard !sheets.isEmpty else { return nil }
        let bytes = HTMLIndex.page(sheets, link: PageLinks(page: page).href)
        do throws(OutputError) {
            _ = try AtomicWriter().write(bytes, to: page)
            return nil
        } catch {
            return error.runFailure(prefix: "cannot write the page: ")
        }
    }

    /// Why the page's folder cannot take the page, checked before any image is read.
    static func cannotWrite(_ page: PathName) -> RunFailure? {
        let folder = page.directory
        guard folder.withCString({ $0.map { access($0, W_OK | X_OK) } ?? -1 }) != 0 else { return nil }
        let code = errno
        let hint = code == ENOENT ? " (create the folder first)" : ""
        return RunFailure(status: .cannotCreateOutput,
                          message: "cannot write the page to folder '\(folder)': \(String(cString: strerror(code)))\(hint)")
    }
}

/// The sheets of a run, from its events in order: a sheet's `placed`
/// events come just before its `written` one.
struct PageRecords {
    /// A `--diff` cell's rectangle on the sheet cut where its baseline
    /// panel ends: the baseline's, and the rest's.
    typealias CellSplit = @Sendable (TileRect, ComparedPair) -> (baseline: TileRect, current: TileRect)

    var sheets: [HTMLIndex.Sheet] = []
    private var placed: [HTMLIndex.Tile] = []
    /// `--diff`: each compared pair, by its current path.
    private var pairs: [PathName: ComparedPair] = [:]
    let split: CellSplit?

    init(split: CellSplit?) { self.split = split }

    mutating func note(_ event: PipelineEvent) {
        switch event {
        case .compared(let pair):
            pairs[pair.path] = pair
        case .placed(let path, _, _, let rect, let label, _):
            if let pair = pairs[path], let split {
                // A diff cell: its baseline panel links to the baseline's
                // file, the current, difference and page panels to the current one.
                let (left, right) = split(rect, pair)
                placed.append(HTMLIndex.Tile(path: pair.baseline, rect: left, caption: label.map { $0 + " (baseline)" }))
                placed.append(HTMLIndex.Tile(path: path, rect: right, caption: label.map { $0 + " (current)" }))
            } else {
                placed.append(HTMLIndex.Tile(path: path, rect: rect, caption: label))
            }
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
