import Dispatch
import FileFacts
@preconcurrency import OpenCombine
import Vips
import Locking

/// One image of a sheet: decoded, or (`--dry-run`) only its header read.
struct SheetItem: Sendable {
    let path: PathName
    let header: ImageHeader
    let tile: DecodedTile?
}

/// An image of a sheet cut on headers, and the frame it is decoded to.
struct PlannedDecode: Sendable {
    let image: AcceptedImage
    let frame: Frame
    /// The sheet's last image: its sheet is complete once this is decoded.
    let last: Bool
    /// With `--shard`: the sheet's place in the whole run.
    var place: SheetPlace?
    /// With `--shard` and `--skip-unchanged`: the sheet as the last run
    /// wrote it, kept; nothing of it is decoded.
    var kept: RunState.Output?
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
    /// The run's decode budget, shared with its sheets' re-decodes.
    let budget: DecodeBudget
    let decodeFailed: @Sendable (DecodeFailure) -> Void
    /// Whether a signal asked the run to stop.
    let stop: @Sendable () -> Bool
    /// With `--shard` and `--skip-unchanged`: what an earlier run of this shard wrote.
    var previous: RunState?
    /// `--from-plan`: where the plan's events and its images' stamps go.
    let reportPlanned: @Sendable (PipelineEvent) -> Void
    let considerPlanned: @Sendable (RunState.Considered) -> Void

    init(configuration: CollageConfiguration, instrumentation: RunInstrumentation, budget: DecodeBudget,
         workers: DispatchQueue, queue: DispatchQueue, stop: @escaping @Sendable () -> Bool,
         report: @escaping @Sendable (PipelineEvent) -> Void,
         consider: @escaping @Sendable (RunState.Considered) -> Void,
         decodeFailed: @escaping @Sendable (DecodeFailure) -> Void) {
        self.configuration = configuration
        self.workers = workers
        self.queue = queue
        self.instrumentation = instrumentation
        self.budget = budget
        self.decodeFailed = decodeFailed
        self.stop = stop
        (reportPlanned, considerPlanned) = (report, consider)
        // With --sheets, every shard reads every header; only shard 0 reports
        // what the scan finds wrong, so that the shards' summaries add up.
        let mutes = configuration.mutesScan
        let scanReport: @Sendable (PipelineEvent) -> Void = { event in
            if case .accepted = event {} else if mutes { return }
            report(event)
        }
        // Weakly: the walk holds this closure (LeakSanitizer found the cycle,
        // a walk and its folders kept past the run, each pass of --watch).
        let walkReports = Locked(WeakWalk())
        let reportWalk: (PipelineEvent) -> Void = { event in
            // The look past the cap only counts: it reports nothing.
            if walkReports.withLock({ $0.walk })?.muted != true { scanReport(event) }
        }
        // A signal ends the walk, even one blocked on standard input.
        let inputWalk = InputWalk(inputs: configuration.inputs, followLinks: configuration.followLinks,
                                  nulSeparated: configuration.nulSeparated, recursive: configuration.recursive,
                                  rules: configuration.scan, shouldStop: stop, listing: configuration.listing,
                                  listed: { [instrumentation] in instrumentation.listed($0) }, report: reportWalk)
        let walk = SharedWalk(instrumentation: instrumentation, inputWalk)
        walkReports.withLock { $0.walk = walk }
        self.walk = walk
        let probe = configuration.probe
        let observe: @Sendable (PathName, FileStamp?, [PathName]?) -> Void = { path, stamp, sidecars in
            consider(RunState.Considered(path: path, stamp: stamp, listed: sidecars))
        }
        selection = Selection(probe: probe, report: scanReport, observe: configuration.keepsState ? observe : nil)
    }

    /// The decoder with a full sheet's frames as its slots: each image's
    /// frame when the layout places images by their count alone.
    func slotted(_ decode: Decode, layout: any SheetLayout) -> Decode {
        var slotted = decode
        slotted.slots = layout.layOut(Array(repeating: .unknown, count: configuration.effectiveCap),
                                      on: configuration.canvas).frames
        return slotted
    }

    /// Decoded tiles cut into sheets of the cap; a decode that failed is
    /// told and leaves no place.
    func cutDecoded(_ decoded: AnyPublisher<Result<DecodedTile, DecodeFailure>, Never>) -> AnyPublisher<CutSheet, Never> {
        let decodeFailed = decodeFailed
        return decoded
            .compactMap { result -> SheetItem? in
                switch result {
                case .success(let tile): return SheetItem(path: tile.path, header: tile.header, tile: tile)
                case .failure(let failure): decodeFailed(failure); return nil
                }
            }
            .sheets(of: configuration.effectiveCap, wholeInput: configuration.sheets).map { CutSheet(items: $0) }
            .eraseToAnyPublisher()
    }

    /// For a layout that needs the whole sheet's shapes: the sheet is cut
    /// on headers (at most `--max` files open), laid out, and each image
    /// decoded straight to its frame, the decodes of one sheet at most
    /// `jobs` at once and ahead into the next by the same window. An image
    /// that fails to decode leaves its sheet one short (the composer lays
    /// the rest out again); nothing from the next sheet takes its place.
    /// (With `--shard`, the sheets of other shards are gone before this, and a
    /// sheet kept from the last run passes as one element, not decoded.)
    func cutThenDecode<Cut: Publisher>(_ cut: Cut, layout: any SheetLayout, decode: Decode)
        -> AnyPublisher<CutSheet, Never> where Cut.Output == CutImages, Cut.Failure == Never {
        let canvas = configuration.canvas
        let decodeFailed = decodeFailed
        return cut
            .flatMap(maxPublishers: .max(1)) { cut in
                let images = cut.kept == nil ? cut.images : Array(cut.images.prefix(1))
                let frames = layout.layOut(images.map(\.shape), on: canvas).frames
                return Publishers.Sequence<[PlannedDecode], Never>(sequence: images.indices.map {
                    PlannedDecode(image: images[$0], frame: frames[$0], last: $0 == images.count - 1,
                                  place: cut.place, kept: cut.kept)
                })
            }
            .orderedParallelMap(limits: configuration.windowLimits, budget: budget, workers: workers, queue: queue,
                                cost: { $0.kept == nil ? Decode.cost($0.image.header, to: $0.frame) : .free }) { planned in
                (result: planned.kept == nil ? decode.decode(planned.image, to: planned.frame) : nil,
                 last: planned.last, place: planned.place, kept: planned.kept)
            }
            .scan(CutSheet(items: [], complete: false)) { sheet, decoded in
                var next = CutSheet(items: sheet.complete ? [] : sheet.items, place: decoded.place, kept: decoded.kept,
                                    complete: decoded.last)
                switch decoded.result {
                case .success(let tile)?: next.items.append(SheetItem(path: tile.path, header: tile.header, tile: tile))
                case .failure(let failure)?: decodeFailed(failure)
                case nil: break
                }
                return next
            }
            .filter(\.complete)
            .eraseToAnyPublisher()
    }

    /// The run's composer: its layout on its canvas; a sheet's re-decodes
    /// share the run's decode budget and are counted as its decodes are.
    static func composer(_ configuration: CollageConfiguration, budget: DecodeBudget, workers: DispatchQueue,
                         instrumentation: (any StageInstrumentation)? = nil) -> SheetComposer {
        SheetComposer(layout: configuration.layout, canvas: configuration.canvas, background: configuration.background,
                      suffix: configuration.saverSuffix!, dpi: configuration.print.resolution,
                      printsPages: configuration.writesPDF, paper: configuration.print.page, captions: configuration.captions,
                      probe: configuration.probe, budget: budget, jobs: configuration.jobs, workers: workers,
                      instrumentation: instrumentation)
    }
}

/// The run's walk, not kept alive by what it reports to.
private struct WeakWalk {
    weak var walk: SharedWalk?
}
