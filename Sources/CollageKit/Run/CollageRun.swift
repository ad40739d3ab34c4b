import Dispatch
import Glibc
import Locking
import Logging
@preconcurrency import OpenCombine
import Vips

/// One run of the pipeline, of any kind:
///
///     SheetSource (walk, select, decode, cut; or pairs compared) ─► Compose + Save
///
/// Demand flows back from the pausable sink one sheet at a time: while a
/// sheet is being composed and written, the sink is paused and nothing
/// upstream is scanned or decoded. This class is the shell around
/// `RunMachine`: it asks its `SheetSource` for the sheets, feeds the machine
/// what happens, and performs the actions it returns, all on one serial
/// queue, so events come out in order. Only decoding and saving run
/// elsewhere. Every kind of run is this shell over another source.
final class CollageRun: CollageJob, Sendable {
    let configuration: CollageConfiguration
    let logger: Logger
    let queue = DispatchQueue(label: "collage.pipeline")
    let workers = DispatchQueue(label: "collage.decode", attributes: .concurrent)
    let saveQueue = DispatchQueue(label: "collage.save")
    let writer: AtomicWriter
    /// `-o NAME.pdf`: the PDF the sheets are pages of, put in place at the end.
    let book: PDFBook?
    let hub = EventHub()
    let finished = DispatchSemaphore(value: 0)
    let stopRequested = Locked<ExitStatus?>(nil)  // set by a stop on another thread (see `Locked`)
    let instrumentation: RunInstrumentation
    /// What the run's decodes may hold at once, shared by the decode window
    /// and a sheet's re-decodes.
    let budget: DecodeBudget
    /// Where the run's sheets come from.
    let source: any SheetSource

    /// Touched on `queue` only (and read by `run` once the run has ended).
    struct Owned {
        var machine: RunMachine
        var tally = Tally()
        var sink: (any Pausable)?
        var saving: AnyCancellable?
        var session: OutputSession?
        /// The sheet the sink received, until it is saved.
        var sheet: [SheetItem] = []
        var sheetNumber = 0
        /// With `--shard`: the received sheet's place in the whole run.
        var place: SheetPlace?
        var outcome: RunOutcome?
        /// `--skip-unchanged`: the outputs found made from the same inputs and options.
        var unchanged: [RunState.Output] = []
        /// They were reported, and the run ends without making anything.
        var skipped = false
        /// The sheet saved, until the machine says whether it is published.
        var saved: SavedSheet?
    }
    let owned: Locked<Owned>

    /// `--flag`'s checker, shared by every run of a job.
    let flagger: Flagger?

    convenience init(configuration: CollageConfiguration, logger: Logger = Logger(label: "collage")) {
        self.init(configuration: configuration, flagger: Flagger(kinds: configuration.flags), logger: logger)
    }

    /// A collage run: its sheets walked, selected, decoded and cut.
    convenience init(configuration: CollageConfiguration, flagger: Flagger?, logger: Logger) {
        self.init(configuration: configuration, source: WalkedSheets(configuration: configuration), flagger: flagger,
                  logger: logger)
    }

    init(configuration: CollageConfiguration, source: any SheetSource, flagger: Flagger? = nil,
         instrumentation: RunInstrumentation = RunInstrumentation(), logger: Logger) {
        self.configuration = configuration
        self.source = source
        self.flagger = flagger
        self.logger = logger
        self.instrumentation = instrumentation
        writer = AtomicWriter(queue: saveQueue, stem: configuration.sidecarOutput)
        book = configuration.writesPDF && !configuration.dryRun ? PDFBook(path: configuration.output, writer: writer) : nil
        budget = DecodeBudget(limit: configuration.decodeMemoryBudget, allocator: source.allocator)
        owned = Locked(Owned(machine: RunMachine(sheets: configuration.sheets),
                             tally: Tally(sharded: configuration.sheets && configuration.shard != nil,
                                          planned: configuration.fromPlan != nil)))
    }

    var events: AnyPublisher<PipelineEvent, Never> { hub.events }

    /// Runs to the end and says how it ended. Blocks the calling thread.
    func run() -> RunOutcome {
        queue.sync { feed(checks()) }
        finished.wait()
        return owned.withLock { $0.outcome! }
    }

    /// Stops the run as SIGINT or SIGTERM asks: cancels the pipeline through
    /// its subscription, lets a save in progress remove its temporary file.
    func interrupt(_ status: ExitStatus) {
        stopRequested.withLock { $0 = $0 ?? status }
        let writing = writer.cancel()
        queue.async { self.feed(.interrupted(status, writing: writing)) }
    }

    // MARK: - The shell (on `queue`)

    var stop: ExitStatus? { stopRequested.withLock { $0 } }

    func feed(_ input: RunMachine.Input) {
        dispatchPrecondition(condition: .onQueue(queue))
        perform(owned.withLock { $0.machine.handle(input) })
    }

    private func perform(_ actions: [RunMachine.Action]) {
        for action in actions {
            switch action {
            case .startPipeline:
                startPipeline()
            case .reportUnchanged:
                owned.withLock { $0.skipped = true }
                for output in owned.withLock({ $0.unchanged }) {
                    report(.unchanged(output: output.path, images: output.images))
                }
            case .save:
                save()
            case .publishSheet:
                if let sheet = owned.withLock({ owned in defer { owned.saved = nil }; return owned.saved }) {
                    publish(sheet)
                }
            case .noticeLeftOut:
                noticeLeftOut()
            case .requestSheet:
                // Later, never from inside the sink's own delivery, which
                // pauses it on return (a resume before that would be lost).
                queue.async { self.owned.withLock { $0.sink }?.resume() }
            case .cancelUpstream:
                owned.withLock { $0.sink }?.cancel()
            case .end(let interruption, let failure):
                end(interruption: interruption, failure: failure)
            }
        }
    }

    func report(_ event: PipelineEvent) {
        if case .failed(let path, let error) = event, let stamp = FileStamp.of(path),
           StillBeingWritten.applies(message: error, modified: stamp.modified, now: Int64(time(nil))) {
            // Still being copied: as if it was not there, and not kept for --skip-unchanged.
            owned.withLock { $0.tally.considered.removeAll { $0.path == path } }
            report(.passedOver(path: path, kind: .beingWritten))
            report(.notice(StillBeingWritten.notice(path, error)))
            return
        }
        owned.withLock { $0.tally.count(event) }
        hub.send(event)
    }
}
