import Dispatch
import Glibc
import Logging
import OpenCombine
import Vips

/// One run of the pipeline:
///
///     Source ─► Probe ─► Reject ─► Decode (≤ jobs, ordered) ─► Cap ─► Sheets ─► Save
///
/// Demand flows back from the pausable sink one sheet at a time: while a
/// sheet is being composed and written, the sink is paused and nothing
/// upstream is scanned or decoded. Everything but decoding and saving runs
/// on one serial queue, so events come out in order.
public final class CollageRun: @unchecked Sendable {
    public let configuration: CollageConfiguration
    private let logger: Logger
    private let queue = DispatchQueue(label: "collage.pipeline")
    private let workers = DispatchQueue(label: "collage.decode", attributes: .concurrent)
    private let saveQueue = DispatchQueue(label: "collage.save")
    private let writer: AtomicWriter
    private let subject = PassthroughSubject<PipelineEvent, Never>()
    private let shared: Publishers.ShareReplay<PassthroughSubject<PipelineEvent, Never>>
    private let finished = DispatchSemaphore(value: 0)
    private let stopRequested = Locked<ExitStatus?>(nil)
    let instrumentation = RunInstrumentation()
    private var lock: OutputLock?

    // Owned by `queue`.
    private var summary = Summary()
    private var sink: Pausable?
    private var saveSubscription: AnyCancellable?
    private var walk: SharedWalk?
    /// The pipeline was started (`preflight` passed).
    private var running = false
    private var sheetNumber = 0
    private var saving = false
    private var upstreamDone = false
    private var ended = false
    private var failure: (ExitStatus, String)?
    private var interruption: ExitStatus?
    private var outcome: RunOutcome?
    private var accepted = 0
    private var decodeFailures = 0
    private var droppedForEven = 0
    /// For `--skip-unchanged`: every input checked, and every output written.
    private var considered: [RunState.Considered] = []
    private var outputs: [RunState.Output] = []

    public init(configuration: CollageConfiguration, logger: Logger = Logger(label: "collage")) {
        self.configuration = configuration
        self.logger = logger
        self.writer = AtomicWriter(queue: saveQueue, stem: configuration.output)
        self.shared = subject.shareReplay(capacity: 64)
    }

    /// Every event of the run, in order, on one shared stream: the JSON
    /// writer, the progress line and the summary each subscribe, nothing is
    /// scanned twice, and a subscriber that comes late still gets the last
    /// 64 events, the final summary among them.
    public var events: AnyPublisher<PipelineEvent, Never> { shared.eraseToAnyPublisher() }

    /// Runs to the end and says how it ended. Blocks the calling thread.
    public func run() -> RunOutcome {
        if let early = preflight() {
            subject.send(.finished(early))
            return early
        }
        queue.async { [self] in start() }
        finished.wait()
        return queue.sync { outcome! }
    }

    /// Stops the run as SIGINT or SIGTERM asks: cancels the pipeline through
    /// its subscription, lets a save in progress remove its temporary file.
    public func interrupt(_ status: ExitStatus) {
        stopRequested.withLock { $0 = $0 ?? status }
        let writing = writer.cancel()
        queue.async { [self] in
            // Before the pipeline starts, `preflight` (waiting for the lock)
            // sees the stop itself and ends the run: ending it here too
            // would report a second summary.
            guard running, !ended, interruption == nil else { return }
            interruption = status
            sink?.cancel()
            // A sheet being composed or encoded is abandoned (the writer will
            // refuse it); one being written to disk is waited for, so that its
            // temporary file is removed before the process ends.
            if !saving || !writing { end() }
        }
    }

    // MARK: - Before any image is read

    private func preflight() -> RunOutcome? {
        func fail(_ status: ExitStatus, _ message: String) -> RunOutcome {
            RunOutcome(status: status, message: message, summary: Summary())
        }
        do { try Vips.start() } catch {
            return fail(.ioError, "cannot start libvips: \(error)")
        }
        if configuration.dryRun { return nil }  // writes nothing: no lock, no clean-up
        guard configuration.saverSuffix != nil else {
            // Known extensions whose saver this libvips lacks (AVIF without
            // an AV1 encoder) are not offered.
            let writable = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "avif"]
                .filter { OutputNaming.suffixes[$0].map { Vips.canSave(suffix: $0) } ?? false }
            return fail(.usage, "cannot write '\(configuration.output)': the extension must be one of "
                        + writable.joined(separator: ", "))
        }
        for input in configuration.inputs {
            guard case .path(let path) = input else { continue }
            let readable = path.withCString { name -> Int32 in
                guard let name else { errno = EINVAL; return -1 }
                var info = stat()
                guard stat(name, &info) == 0 else { return -1 }
                let mode: Int32 = (info.st_mode & S_IFMT) == S_IFDIR ? R_OK | X_OK : R_OK
                return access(name, mode)
            }
            if readable != 0 {
                return fail(.noInput, "cannot read input '\(path)': \(systemError(errno))")
            }
        }
        let folder = configuration.output.directory
        let writable = folder.withCString { name -> Int32 in
            guard let name else { errno = EINVAL; return -1 }
            return access(name, W_OK | X_OK)
        }
        if writable != 0 {
            let code = errno
            let hint = code == ENOENT ? " (create the folder first)" : ""
            return fail(.cannotCreateOutput, "cannot write to folder '\(folder)': \(systemError(code))\(hint)")
        }
        // The lock and temporary files beside the output have names that
        // always fit (see PathName.hiddenStem); the output's own name must too.
        let first = configuration.naming.path(forSheet: 1)
        let nameMax = folder.withCString { $0.map { pathconf($0, Int32(_PC_NAME_MAX)) } ?? -1 }
        if nameMax > 0, first.lastComponent.count > nameMax {
            return fail(.cannotCreateOutput, "cannot write '\(first)': its name is \(first.lastComponent.count) bytes, "
                        + "more than the \(nameMax) this file system allows")
        }
        let output = configuration.output
        switch OutputLock.acquire(for: output,
                                  waiting: { subject.send(.notice(OutputLock.waitingNotice(for: output))) },
                                  shouldStop: { stopRequested.withLock { $0 } != nil }) {
        case .success(let lock):
            self.lock = lock
        case .failure(.stopped):
            let status = stopRequested.withLock { $0 } ?? .interrupted
            return fail(status, "interrupted while waiting for another run: nothing written")
        case .failure(.cannotCreate(let message)):
            return fail(.cannotCreateOutput, message)
        }
        // Holding the lock, no live run is writing: what temporary files
        // remain were left by a run that was killed.
        AtomicWriter.removeLeftovers(beside: output)
        if configuration.skipUnchanged, let state = RunState.load(for: output), state.matches(configuration) {
            var summary = Summary()
            for output in state.outputs {
                let event = PipelineEvent.unchanged(output: output.path, images: output.images)
                summary.count(event)
                subject.send(event)
            }
            lock = nil
            return RunOutcome(status: .success, message: nil, summary: summary)
        }
        return nil
    }

    // MARK: - The pipeline (on `queue`)

    private func start() {
        running = true
        let configuration = configuration
        let cap = configuration.effectiveCap
        let full = GridLayout(count: cap, canvasWidth: configuration.canvasWidth,
                              canvasHeight: configuration.canvasHeight)
        let stopRequested = stopRequested
        let walk = SharedWalk(instrumentation: instrumentation, InputWalk(inputs: configuration.inputs, followLinks: configuration.followLinks,
                                        nulSeparated: configuration.nulSeparated,
                                        recursive: configuration.recursive,
                                        // A signal ends the walk, even one blocked on standard input.
                                        shouldStop: { stopRequested.withLock { $0 } != nil },
                                        report: { [unowned self] event in
                                            // The look past the cap (noteLeftOut) only counts: it reports nothing.
                                            if self.walk?.muted != true { report(event) }
                                        }))
        self.walk = walk
        var probe = Probe(maxPixels: configuration.maxPixels, allowPortrait: configuration.allowPortrait,
                          report: { [unowned self] in report($0) })
        if configuration.keepsState {
            probe.observe = { [unowned self] path, stamp in considered.append(.init(path: path, stamp: stamp)) }
        }
        if configuration.dryRun {
            return plan(Publishers.Pull { walk }.compactMap { probe($0) }, cap: cap)
        }
        let decode = Decode(tileWidth: full.tileWidth, tileHeight: full.tileHeight,
                            background: configuration.background,
                            budget: DecodeBudget(limit: configuration.decodeMemoryBudget, slots: configuration.jobs),
                            instrumentation: instrumentation,
                            keepsFile: Decode.canKeepFiles(cap + 2 * configuration.jobs + 1))

        let tiles = Publishers.Pull { walk }
            .compactMap { probe($0) }
            // With --sheets, the decode window: up to `jobs` images ahead of the
            // sheet asked for, so no decoder idles while a sheet's last image
            // or the sheet's save runs. While a sheet is written only those
            // may finish; nothing more is scanned until the sink resumes.
            // Without --sheets there is no next sheet to work ahead for.
            // One more dispatched than `jobs`: the budget lets at most `jobs` run.
            .orderedParallelMap(maxConcurrent: configuration.jobs + 1,
                                lookahead: configuration.sheets ? configuration.jobs : 0,
                                workers: workers, queue: queue) { decode($0) }
            .compactMap { [unowned self] result -> DecodedTile? in
                switch result {
                case .success(let tile): return tile
                case .failure(let failure):
                    decodeFailures += 1
                    report(.failed(path: failure.path, error: failure.message))
                    return nil
                }
            }
        let capped = configuration.sheets ? tiles.eraseToAnyPublisher() : tiles.prefix(cap).eraseToAnyPublisher()
        sink = capped
            .collect(cap)
            .pausableSink(
                receiveCompletion: { [unowned self] _ in
                    upstreamDone = true
                    if !saving { end() }
                },
                receiveValue: { [unowned self] sheet in
                    write(sheet)
                    return false  // paused until the sheet is on disk
                })
    }

    /// `--dry-run`: the same scan, headers and cap, and instead of decoding
    /// and saving, a `planned` event per sheet.
    private func plan<P: Publisher>(_ accepted: P, cap: Int) where P.Output == AcceptedImage, P.Failure == Never {
        let images = accepted.map { (path: $0.path, header: $0.header) }  // lets go of the open file
        let capped = configuration.sheets ? images.eraseToAnyPublisher() : images.prefix(cap).eraseToAnyPublisher()
        sink = capped
            .collect(cap)
            .pausableSink(
                receiveCompletion: { [unowned self] _ in end() },
                receiveValue: { [unowned self] sheet in
                    let kept = evenSet(sheet.map(\.path))
                    guard !kept.isEmpty else { return true }
                    sheetNumber += 1
                    report(.planned(PlannedSheet(output: configuration.naming.path(forSheet: sheetNumber),
                                                 sheet: sheetNumber, images: kept,
                                                 width: configuration.canvasWidth, height: configuration.canvasHeight)))
                    if !configuration.sheets {
                        end()  // one collage: the scan goes no further
                        return false
                    }
                    return true
                })
    }

    /// `--require-even`: an odd set loses its last image, and says so.
    private func evenSet<T>(_ items: [T], path: (T) -> PathName = { $0 as! PathName }) -> [T] {
        guard configuration.requireEven, items.count % 2 == 1 else { return items }
        droppedForEven += 1
        report(.notice("--require-even: left out \(path(items.last!)) to keep an even number of images"))
        return Array(items.dropLast())
    }

    private func write(_ sheet: [DecodedTile]) {
        // A signal ended the walk: the sheet it left unfinished is not saved.
        if stopRequested.withLock({ $0 }) != nil { return end() }
        let tiles = evenSet(sheet, path: \.path)
        guard !tiles.isEmpty else {
            if upstreamDone { end() } else { sink?.resume() }
            return
        }
        sheetNumber += 1
        saving = true
        let number = sheetNumber
        let path = configuration.naming.path(forSheet: number)
        let composer = SheetComposer(configuration: configuration, suffix: configuration.saverSuffix!,
                                     workers: workers)
        let started = DispatchTime.now()
        saveQueue.async { [self] in
            instrumentation.beforeSave?(number)
            let composed = composer.compose(tiles)
            queue.async { [self] in
                switch composed {
                case .failure(let error):
                    saved(.failure(OutputError(code: .ioError, path: path, message: error.message)))
                case .success(nil):
                    saved(.success(nil))
                case .success(let sheet?):
                    for failure in sheet.failures {
                        decodeFailures += 1
                        report(.failed(path: failure.path, error: failure.message))
                    }
                    saveSubscription = writer.save(sheet.encoded, to: path).sink(
                        receiveCompletion: { [unowned self] completion in
                            guard case .failure(let error) = completion else { return }
                            queue.async { self.saved(.failure(error)) }
                        },
                        receiveValue: { [unowned self] written in
                            let milliseconds = Int((DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000)
                            let record = WrittenSheet(output: written, sheet: number, images: sheet.tiles.map(\.path),
                                                      width: sheet.layout.canvasWidth, height: sheet.layout.canvasHeight,
                                                      bytes: sheet.encoded.count, milliseconds: milliseconds)
                            queue.async { self.saved(.success((record, sheet))) }
                        })
                }
            }
        }
    }

    private func saved(_ result: Result<(WrittenSheet, ComposedSheet)?, OutputError>) {
        guard !ended else { return }
        saving = false
        saveSubscription = nil
        switch result {
        case .success(let written?):
            let (record, sheet) = written
            if configuration.keepsState, let stamp = FileStamp.of(record.output) {
                outputs.append(RunState.Output(path: record.output, stamp: stamp, images: record.images))
            }
            for (index, tile) in sheet.tiles.enumerated() {
                report(.placed(path: tile.path, sheet: record.sheet, index: index, rect: sheet.layout.tile(index)))
            }
            report(.written(record))
        case .success(nil):
            break
        case .failure(let error):
            switch error.code {
            case .cancelled: break
            case .cannotCreate: failure = (.cannotCreateOutput, error.description)
            case .ioError: failure = (.ioError, error.description)
            }
            sink?.cancel()
            end()
            return
        }
        if upstreamDone || interruption != nil {
            end()
        } else if !configuration.sheets {
            // Without --sheets one collage is all: the cap was reached, and the
            // scan goes no further. (Resuming would let prefix(cap) ask for one
            // more image, which is how OpenCombine's prefix finds its end.)
            sink?.cancel()
            end()
        } else {
            sink?.resume()
        }
    }

    private func report(_ event: PipelineEvent) {
        if case .accepted = event { accepted += 1 }
        summary.count(event)
        subject.send(event)
    }

    /// Once: the notices, the summary, the outcome.
    private func end() {
        guard !ended else { return }
        ended = true
        // A signal may end the walk (and so the run) before `interrupt`'s
        // own step on the queue comes.
        if interruption == nil { interruption = stopRequested.withLock { $0 } }
        sink?.cancel()  // releases the whole chain, up to the walk
        sink = nil
        if interruption == nil, failure == nil, !configuration.sheets, summary.used == configuration.effectiveCap {
            noteLeftOut()
        }
        walk = nil
        let outcome = makeOutcome()
        if configuration.keepsState { keepState(outcome) }
        lock = nil
        self.outcome = outcome
        report(.finished(outcome))
        finished.signal()
    }

    /// The seed's "limit reached" alert: if eligible images were left out by
    /// the cap, say so. The walk was cancelled at the cap; it is asked for a
    /// few more candidates (headers only, nothing reported) to find out.
    private func noteLeftOut() {
        var known = accepted - summary.used - decodeFailures
        if known <= 0, let walk {
            let probe = Probe(maxPixels: configuration.maxPixels, allowPortrait: configuration.allowPortrait,
                              report: { _ in })
            walk.muted = true
            for _ in 0..<64 {
                guard let file = walk.next() else { break }
                if case .success = probe.check(file.path) { known = 1; break }
            }
        }
        guard known > 0 else { return }
        let count = known > 1 ? "at least \(known) more eligible images were" : "more eligible images were"
        report(.notice("--max \(configuration.effectiveCap) reached: \(count) left out; --sheets puts them all on contact sheets"))
    }

    /// After a clean run, what it was made from goes beside the output; after
    /// any other, an older state is removed so that the next run redoes it.
    private func keepState(_ outcome: RunOutcome) {
        guard outcome.status == .success, !outputs.isEmpty else {
            RunState.remove(for: configuration.output)
            return
        }
        var inputs = considered
        let cap = configuration.effectiveCap
        let stoppedAtCap = !configuration.sheets && summary.used == cap
        if stoppedAtCap, let last = outputs.last?.images.last, let index = inputs.lastIndex(where: { $0.path == last }) {
            inputs = Array(inputs[...index])
        }
        let state = RunState(options: RunState.options(of: configuration), complete: !stoppedAtCap,
                             outputs: outputs, inputs: inputs)
        do {
            _ = try AtomicWriter(stem: configuration.output).write(state.serialised,
                                                                   to: RunState.path(for: configuration.output))
        } catch {
            logger.warning("cannot keep the state for --skip-unchanged: \(error)")
        }
    }

    private func makeOutcome() -> RunOutcome {
        let (status, message): (ExitStatus, String?)
        if let interruption {
            (status, message) = (interruption, "interrupted: no partial output left"
                                 + (summary.written > 0 ? " (\(summary.written) collage(s) written before)" : ""))
        } else if let failure {
            (status, message) = (failure.0, failure.1)
        } else if summary.written == 0 && summary.planned == 0 {
            var counts: [String] = []
            if summary.rejected > 0 { counts.append("\(summary.rejected) rejected") }
            if summary.failed > 0 { counts.append("\(summary.failed) failed") }
            let detail = counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"
            let hint = summary.portraits > 0 ? "; --allow-portrait keeps portrait photos" : ""
            if droppedForEven > 0 {
                (status, message) = (.noInput, "nothing to write: --require-even left out the only eligible image")
            } else {
                (status, message) = (.noInput, "no eligible image found\(detail)\(hint)")
            }
        } else if summary.failed > 0 {
            (status, message) = (.someInputsFailed, "\(summary.failed) input(s) could not be read or decoded (each reported above)")
        } else {
            (status, message) = (.success, nil)
        }
        return RunOutcome(status: status, message: message, summary: summary)
    }
}

/// The run's walk, shared by reference with the source publisher so that,
/// after the cap cancelled the scan, the run can still look one step further.
final class SharedWalk: PullSource {
    private var walk: InputWalk
    private var exhausted = false
    private let instrumentation: RunInstrumentation
    var muted = false

    init(instrumentation: RunInstrumentation, _ walk: InputWalk) {
        self.instrumentation = instrumentation
        self.walk = walk
    }

    func next() -> InputFile? {
        guard !exhausted else { return nil }
        guard let file = walk.next() else { exhausted = true; return nil }
        if !muted { instrumentation.scanned() }
        return file
    }
}
