import Dispatch
import Logging
@preconcurrency import OpenCombine
import Synchronization
import Vips

/// `--diff BASELINE`, the shell around `DiffMachine`:
///
///     pairs (walk both) ─► open (bytes, headers) ─► compare (≤ jobs, in the
///     decode budget, in order) ─► sort, cut ─► sheets, one at a time ─► JUnit
///
/// Like `CollageRun`, it feeds its machine on one serial queue and performs
/// the actions it returns there; only comparing and saving run elsewhere.
public final class DiffRun: CollageJob, Sendable {
    let configuration: CollageConfiguration
    let settings: DiffSettings
    let logger: Logger
    let queue = DispatchQueue(label: "collage.diff")
    let workers = DispatchQueue(label: "collage.compare", attributes: .concurrent)
    let saveQueue = DispatchQueue(label: "collage.save")
    let writer: AtomicWriter
    let hub = EventHub()
    let finished = DispatchSemaphore(value: 0)
    let stopRequested = Mutex<ExitStatus?>(nil)
    let instrumentation = RunInstrumentation()
    let budget: DecodeBudget
    let comparison: PairComparison

    struct Owned {
        var machine = DiffMachine()
        var tally = Tally()
        var session: OutputSession?
        var comparing: AnyCancellable?
        var saving: AnyCancellable?
        var unchanged: [RunState.Output] = []
        /// Every pair compared, in the walk's order, and those that could not be read.
        var compared: [ComparedPair] = []
        var unreadable: [JUnitReport.Unreadable] = []
        /// The differing pairs, most changed first, cut into this run's sheets.
        var sheets: [[ComparedPair]] = []
        var leftOut = 0
        var saved: SavedSheet?
        var outcome: RunOutcome?
    }
    let owned = Locked(Owned())

    public init(configuration: CollageConfiguration, logger: Logger = Logger(label: "collage")) {
        precondition(configuration.diff != nil, "a diff run needs --diff's settings")
        self.configuration = configuration
        settings = configuration.diff!
        self.logger = logger
        writer = AtomicWriter(queue: saveQueue, stem: configuration.sidecarOutput)
        budget = DecodeBudget(limit: configuration.decodeMemoryBudget, tightensAllocator: false)
        comparison = PairComparison(probe: configuration.probe, settings: configuration.diff!,
                                    instrumentation: instrumentation)
    }

    public var events: AnyPublisher<PipelineEvent, Never> { hub.events }

    public func run() -> RunOutcome {
        Vips.reuseLargeBuffers()
        queue.sync { feed(checks()) }
        finished.wait()
        return owned.withLock { $0.outcome! }
    }

    public func interrupt(_ status: ExitStatus) {
        stopRequested.withLock { $0 = $0 ?? status }
        let writing = writer.cancel()
        queue.async { self.feed(.interrupted(status, writing: writing)) }
    }

    var stop: ExitStatus? { stopRequested.withLock { $0 } }

    func feed(_ input: DiffMachine.Input) {
        dispatchPrecondition(condition: .onQueue(queue))
        for action in owned.withLock({ $0.machine.handle(input) }) {
            switch action {
            case .startComparing:
                startComparing()
            case .reportUnchanged:
                for output in owned.withLock({ $0.unchanged }) {
                    report(.unchanged(output: output.path, images: output.images))
                }
            case .saveSheet(let index):
                saveSheet(index)
            case .publishSheet:
                if let sheet = owned.withLock({ owned in defer { owned.saved = nil }; return owned.saved }) {
                    publish(sheet)
                }
            case .noticeLeftOut:
                let left = owned.withLock { $0.leftOut }
                if left > 0 {
                    report(.notice("\(left) more differing image(s) left out of the sheet; --sheets shows them all"))
                }
            case .cancelComparing:
                owned.withLock { $0.comparing }?.cancel()
            case .end(let interruption, let failure, let skipped):
                end(interruption: interruption, failure: failure, skipped: skipped)
            }
        }
    }

    func report(_ event: PipelineEvent) {
        owned.withLock { $0.tally.count(event) }
        hub.send(event)
    }

    /// Walks both trees, then compares the pairs at most `jobs` at once in
    /// the decode budget, reporting each in the walk's order.
    private func startComparing() {
        let pairing = DiffPairing(inputs: configuration.inputs, baseline: settings.baseline,
                                  followLinks: configuration.followLinks, nulSeparated: configuration.nulSeparated,
                                  rules: configuration.scan)
        let (all, walked) = pairing.pairs(shouldStop: { [self] in stop != nil }, report: { [self] in self.report($0) })
        if configuration.keepsState {
            owned.withLock { $0.tally.considered = walked.map { RunState.Considered(path: $0, stamp: FileStamp.of($0)) } }
        }
        let shard = configuration.shard
        let pairs = all.filter { shard?.owns(folder: $0.relative.bytes) ?? true }
        let comparison = comparison
        let tell: @Sendable (PipelineEvent) -> Void = { [self] in report($0) }
        let sink = Publishers.Sequence<[DiffPair], Never>(sequence: pairs)
            .map { comparison.open($0, report: tell) }
            .orderedParallelMap(limits: configuration.windowLimits, budget: budget, workers: workers, queue: queue,
                                cost: PairComparison.cost) { comparison.compare($0) }
            .sink(receiveCompletion: { [self] _ in
                      queue.async { self.feed(.compared(sheets: self.cut())) }
                  },
                  receiveValue: { [self] outcome in received(outcome) })
        owned.withLock { $0.comparing = sink }
    }

    private func received(_ outcome: PairOutcome) {
        switch outcome {
        case .compared(let pair):
            owned.withLock { $0.compared.append(pair) }
            report(.compared(pair))
        case .failed(let pair, let failures):
            for failure in failures { report(.failed(path: failure.path, error: failure.message)) }
            owned.withLock { $0.unreadable.append(JUnitReport.Unreadable(relative: pair.relative,
                                                                         message: failures.first?.message ?? "cannot be read")) }
        }
    }

    /// The differing pairs, most changed first, in sheets of `--max`: all
    /// of them with `--sheets`, else the first.
    private func cut() -> Int {
        owned.withLock { owned in
            let differing = owned.compared.filter { $0.status != .unchanged }.sorted(by: ComparedPair.moreChanged)
            let cap = configuration.effectiveCap
            owned.sheets = stride(from: 0, to: differing.count, by: cap).map {
                Array(differing[$0..<min($0 + cap, differing.count)])
            }
            if !configuration.sheets, owned.sheets.count > 1 {
                owned.leftOut = differing.count - cap
                owned.sheets = [owned.sheets[0]]
            }
            return owned.sheets.count
        }
    }
}
