import Dispatch
@preconcurrency import OpenCombine
import Vips

/// One image of a sheet: decoded, or (`--dry-run`) only its header read.
struct SheetItem: Sendable {
    let path: PathName
    let header: ImageHeader
    let tile: DecodedTile?
}

/// The stages of a run, wired in the order the flow reads:
///
///     walk ─► select ─► decode (≤ jobs, in order) ─► cap and cut into sheets
struct RunStages {
    let configuration: CollageConfiguration
    let walk: SharedWalk
    let selection: Selection
    let workers: DispatchQueue
    let queue: DispatchQueue
    let instrumentation: RunInstrumentation
    let decodeFailed: @Sendable (DecodeFailure) -> Void

    init(configuration: CollageConfiguration, instrumentation: RunInstrumentation,
         workers: DispatchQueue, queue: DispatchQueue, stop: @escaping @Sendable () -> Bool,
         report: @escaping @Sendable (PipelineEvent) -> Void,
         consider: @escaping @Sendable (RunState.Considered) -> Void,
         decodeFailed: @escaping @Sendable (DecodeFailure) -> Void) {
        self.configuration = configuration
        self.workers = workers
        self.queue = queue
        self.instrumentation = instrumentation
        self.decodeFailed = decodeFailed
        let walkReports = Locked<SharedWalk?>(nil)
        let reportWalk: (PipelineEvent) -> Void = { event in
            // The look past the cap only counts: it reports nothing.
            if walkReports.withLock({ $0 })?.muted != true { report(event) }
        }
        // A signal ends the walk, even one blocked on standard input.
        let inputWalk = InputWalk(inputs: configuration.inputs, followLinks: configuration.followLinks,
                                  nulSeparated: configuration.nulSeparated, recursive: configuration.recursive,
                                  shouldStop: stop, report: reportWalk)
        let walk = SharedWalk(instrumentation: instrumentation, inputWalk)
        walkReports.withLock { $0 = walk }
        self.walk = walk
        let probe = Probe(maxPixels: configuration.maxPixels, allowPortrait: configuration.allowPortrait)
        let observe: @Sendable (PathName, FileStamp?) -> Void = { path, stamp in
            consider(RunState.Considered(path: path, stamp: stamp))
        }
        selection = Selection(probe: probe, report: report, observe: configuration.keepsState ? observe : nil)
    }

    /// The run's sheets, each asked for by the sink. Decoding runs ahead of
    /// the cut by the decode window: with --sheets, up to `jobs` images of
    /// the next sheet, so no decoder idles while a sheet's last image or its
    /// save runs (while a sheet is written only those may finish; nothing
    /// more is scanned). Without --sheets there is no next sheet to work
    /// ahead for. One more is dispatched than `jobs`: the budget lets at most
    /// `jobs` run, and a small image takes a slot a giant waits for.
    func sheets() -> AnyPublisher<[SheetItem], Never> {
        let cap = configuration.effectiveCap
        let (walk, selection) = (walk, selection)
        let accepted = Publishers.Pull { walk }.compactMap { selection($0) }
        if configuration.dryRun {
            return accepted.map { SheetItem(path: $0.path, header: $0.header, tile: nil) }  // lets go of the file
                .sheets(of: cap, wholeInput: configuration.sheets)
        }
        let canvas = configuration.canvas
        let decode = Decode(background: configuration.background,
                            slots: configuration.layout.frames(for: Array(repeating: .unknown, count: cap), on: canvas),
                            budget: DecodeBudget(limit: configuration.decodeMemoryBudget, slots: configuration.jobs),
                            instrumentation: instrumentation,
                            keepsFile: Decode.canKeepFiles(cap + 2 * configuration.jobs + 1))
        let decodeFailed = decodeFailed
        return accepted
            .orderedParallelMap(maxConcurrent: configuration.jobs + 1,
                                lookahead: configuration.sheets ? configuration.jobs : 0,
                                workers: workers, queue: queue) { decode($0) }
            .compactMap { result -> SheetItem? in
                switch result {
                case .success(let tile): return SheetItem(path: tile.path, header: tile.header, tile: tile)
                case .failure(let failure): decodeFailed(failure); return nil
                }
            }
            .sheets(of: cap, wholeInput: configuration.sheets)
    }

    /// Each sheet's composer: the run's layout on its canvas.
    static func composer(_ configuration: CollageConfiguration, workers: DispatchQueue) -> SheetComposer {
        SheetComposer(layout: configuration.layout, canvas: configuration.canvas, background: configuration.background,
                      suffix: configuration.saverSuffix!,
                      probe: Probe(maxPixels: configuration.maxPixels, allowPortrait: configuration.allowPortrait),
                      decodeMemory: configuration.decodeMemoryBudget, jobs: configuration.jobs, workers: workers)
    }
}
