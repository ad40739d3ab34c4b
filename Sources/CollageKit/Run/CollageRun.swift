import Dispatch
import Logging
@preconcurrency import OpenCombine
import Synchronization
import Vips

/// One run of the pipeline:
///
///     Source ─► Select ─► Decode (≤ jobs, ordered) ─► Cap/cut ─► Compose + Save
///
/// Demand flows back from the pausable sink one sheet at a time: while a
/// sheet is being composed and written, the sink is paused and nothing
/// upstream is scanned or decoded. This class is the shell around
/// `RunMachine`: it wires the stages, feeds the machine what happens, and
/// performs the actions it returns, all on one serial queue, so events come
/// out in order. Only decoding and saving run elsewhere.
public final class CollageRun: CollageJob, Sendable {
    public let configuration: CollageConfiguration
    let logger: Logger
    private let queue = DispatchQueue(label: "collage.pipeline")
    private let workers = DispatchQueue(label: "collage.decode", attributes: .concurrent)
    private let saveQueue = DispatchQueue(label: "collage.save")
    private let writer: AtomicWriter
    private let hub = EventHub()
    private let finished = DispatchSemaphore(value: 0)
    private let stopRequested = Mutex<ExitStatus?>(nil)
    let instrumentation = RunInstrumentation()
    /// What the run's decodes may hold at once, shared by the decode window
    /// and a sheet's re-decodes.
    let budget: DecodeBudget

    /// Touched on `queue` only (and read by `run` once the run has ended).
    struct Owned {
        var machine: RunMachine
        var tally = Tally()
        var sink: (any Pausable)?
        var saving: AnyCancellable?
        var walk: SharedWalk?
        var selection: Selection?
        var session: OutputSession?
        /// The sheet the sink received, until it is saved.
        var sheet: [SheetItem] = []
        var sheetNumber = 0
        /// With `--shard`: the received sheet's place in the whole run.
        var place: SheetPlace?
        var outcome: RunOutcome?
    }
    let owned: Locked<Owned>

    /// `--flag`'s checker, shared by every run of a job.
    let flagger: Flagger?

    public convenience init(configuration: CollageConfiguration, logger: Logger = Logger(label: "collage")) {
        self.init(configuration: configuration, flagger: Flagger(kinds: configuration.flags), logger: logger)
    }

    init(configuration: CollageConfiguration, flagger: Flagger?, logger: Logger) {
        self.configuration = configuration
        self.flagger = flagger
        self.logger = logger
        writer = AtomicWriter(queue: saveQueue, stem: configuration.sidecarOutput)
        budget = DecodeBudget(limit: configuration.decodeMemoryBudget)
        owned = Locked(Owned(machine: RunMachine(sheets: configuration.sheets),
                             tally: Tally(sharded: configuration.sheets && configuration.shard != nil)))
    }

    public var events: AnyPublisher<PipelineEvent, Never> { hub.events }

    /// Runs to the end and says how it ended. Blocks the calling thread.
    public func run() -> RunOutcome {
        if let early = Preflight(configuration: configuration).check() { return finish(early) }
        if !configuration.dryRun {
            let output = configuration.output
            let opening = OutputSession.open(
                configuration,
                waiting: { hub.send(.notice(OutputLock.waitingNotice(for: output))) },
                stop: { stopRequested.withLock { $0 } })
            switch opening {
            case .failed(let outcome):
                return finish(outcome)
            case .unchanged(let state):
                var summary = Summary()
                for output in state.outputs {
                    let event = PipelineEvent.unchanged(output: output.path, images: output.images)
                    summary.count(event)
                    hub.send(event)
                }
                return finish(RunOutcome(status: .success, message: nil, summary: summary))
            case .ready(let session):
                owned.withLock { $0.session = session }
            }
        }
        queue.async { self.start() }
        finished.wait()
        return owned.withLock { $0.outcome! }
    }

    private func finish(_ outcome: RunOutcome) -> RunOutcome {
        hub.send(.finished(outcome))
        return outcome
    }

    /// Stops the run as SIGINT or SIGTERM asks: cancels the pipeline through
    /// its subscription, lets a save in progress remove its temporary file.
    public func interrupt(_ status: ExitStatus) {
        stopRequested.withLock { $0 = $0 ?? status }
        let writing = writer.cancel()
        queue.async { self.feed(.interrupted(status, writing: writing)) }
    }

    // MARK: - The shell (on `queue`)

    private var stop: ExitStatus? { stopRequested.withLock { $0 } }

    private func feed(_ input: RunMachine.Input) {
        dispatchPrecondition(condition: .onQueue(queue))
        perform(owned.withLock { $0.machine.handle(input) })
    }

    private func perform(_ actions: [RunMachine.Action]) {
        for action in actions {
            switch action {
            case .save:
                save()
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

    private func start() {
        var stages = RunStages(configuration: configuration, instrumentation: instrumentation, budget: budget,
                               workers: workers, queue: queue, stop: { [self] in stop != nil },
                               report: { [self] in report($0) },
                               consider: { [self] considered in owned.withLock { $0.tally.considered.append(considered) } },
                               decodeFailed: { [self] failure in
                                   owned.withLock { $0.tally.decodeFailures += 1 }
                                   report(.failed(path: failure.path, error: failure.message))
                               })
        owned.withLock { ($0.walk, $0.selection, stages.previous) = (stages.walk, stages.selection, $0.session?.previous) }
        feed(.start)
        guard owned.withLock({ $0.machine.state }) != .ended else { return }
        let sink = stages.sheets().pausableSink(
            receiveCompletion: { [self] _ in feed(.upstreamFinished(stop: stop)) },
            receiveValue: { [self] sheet in
                let kept = items(of: sheet)
                owned.withLock { $0.sheet = kept; $0.place = sheet.place }
                feed(.sheet(empty: kept.isEmpty, stop: stop))
                return false  // paused until the machine asks for the next sheet
            })
        owned.withLock { $0.sink = sink }
    }

    private func save() {
        let (items, number, used) = owned.withLock { owned -> ([SheetItem], Int, Int) in
            owned.sheetNumber = owned.place?.number ?? owned.sheetNumber + 1
            defer { owned.sheet = [] }
            return (owned.sheet, owned.sheetNumber, (owned.place?.firstIndex).map { $0 - 1 } ?? owned.tally.summary.used)
        }
        let path = configuration.naming.path(forSheet: number)
        if configuration.dryRun {
            report(.planned(configuration.plan(items, sheet: number, firstIndex: used + 1, to: path)))
            queue.async { self.feed(.saved(.written)) }
            return
        }
        let tiles = items.compactMap(\.tile)
        let saver = SheetSaver(composer: RunStages.composer(configuration, budget: budget, workers: workers), writer: writer, queue: saveQueue, instrumentation: instrumentation)
        let subscription = saver.save(tiles, sheet: number, firstIndex: used + 1, to: path)
            .sink(receiveCompletion: { [self] completion in
                      if case .failure(let error) = completion { queue.async { self.saved(.failure(error)) } }
                  },
                  receiveValue: { [self] sheet in queue.async { self.saved(.success(sheet)) } })
        owned.withLock { $0.saving = subscription }
    }

    private func saved(_ result: Result<SavedSheet?, OutputError>) {
        guard owned.withLock({ $0.machine.state }) == .saving else { return }
        switch result {
        case .success(let sheet?):
            for failure in sheet.composed.failures {
                owned.withLock { $0.tally.decodeFailures += 1 }
                report(.failed(path: failure.path, error: failure.message))
            }
            if configuration.keepsState, let stamp = FileStamp.of(sheet.record.output) {
                let output = RunState.Output(path: sheet.record.output, stamp: stamp, images: sheet.record.images)
                recordOutput(output)
            }
            let flags = flagger?.check(sheet.composed.tiles)
            for (index, (tile, frame)) in zip(sheet.composed.tiles, sheet.composed.frames).enumerated() {
                for flag in flags?[index] ?? [] { report(.flagged(flag)) }
                let origin = TileOrigin(source: tile.source, duration: tile.header.duration, frame: tile.frameTime)
                report(.placed(path: tile.path, sheet: sheet.record.sheet, index: index, rect: frame.image,
                               label: sheet.composed.labels?[index], origin: origin))
            }
            report(.written(sheet.record))
            feed(.saved(.written))
        case .success(nil):
            feed(.saved(.nothing))
        case .failure(let error):
            switch error.code {
            case .cancelled: feed(.saved(.cancelled))
            case .cannotCreate: feed(.saved(.failed(.cannotCreateOutput, error.description)))
            case .ioError: feed(.saved(.failed(.ioError, error.description)))
            }
        }
    }

    func report(_ event: PipelineEvent) {
        owned.withLock { $0.tally.count(event) }
        hub.send(event)
    }

    /// Once: the notices, the state for the next run, the summary, the outcome.
    private func end(interruption: ExitStatus?, failure: RunMachine.Failure?) {
        let (sink, walk, selection) = owned.withLock { owned in
            defer { owned.sink = nil; owned.saving = nil }
            return (owned.sink, owned.walk, owned.selection)
        }
        sink?.cancel()  // releases the whole chain, up to the walk
        let cap = configuration.effectiveCap
        if interruption == nil, failure == nil, !configuration.sheets, let walk, let selection,
           owned.withLock({ $0.tally.summary.used }) == cap,
           let notice = walk.leftOutNotice(owned.withLock { $0.tally }, probe: selection.probe, cap: cap) {
            report(.notice(notice))
        }
        let tally = owned.withLock { owned in
            owned.walk = nil
            owned.selection = nil
            return owned.tally
        }
        let outcome = RunOutcome(tally: tally, interruption: interruption, failure: failure)
        do {
            let session = owned.withLock { owned in
                defer { owned.session = nil }
                owned.outcome = outcome
                return owned.session
            }
            session?.keepState(outcome, tally, logger: logger)
        }  // the last reference to the session: the lock beside the output is released
        report(.finished(outcome))
        finished.signal()
    }
}

