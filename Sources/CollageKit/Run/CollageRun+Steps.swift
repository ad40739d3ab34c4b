import Dispatch
@preconcurrency import OpenCombine

/// The steps `CollageRun` performs for its machine, on its queue: the
/// checks before the start, the pipeline's start, a sheet's save and its
/// result, the end.
extension CollageRun {
    /// Everything checked before an image is read (the contract's checks,
    /// then the source's own), and the output's lock.
    func checks() -> RunMachine.Input {
        if let early = Preflight(configuration: configuration).check() {
            return .failedBefore(RunFailure(status: early.status, message: early.message ?? ""))
        }
        if let failure = source.check() { return .failedBefore(failure) }
        guard !configuration.dryRun else { return .start }
        return OutputSession.open(source.stateConfiguration(configuration), hub: hub,
                                  stop: { stopRequested.withLock { $0 } }) { session, unchanged in
            owned.withLock { ($0.session, $0.unchanged) = (session, unchanged) }
        }
    }

    func startPipeline() {
        let context = SheetContext(
            configuration: configuration, instrumentation: instrumentation, budget: budget, workers: workers,
            queue: queue, stop: { [self] in stop != nil }, report: { [self] in report($0) },
            consider: { [self] considered in owned.withLock { $0.tally.considered.append(contentsOf: considered) } },
            decodeFailed: { [self] failure in
                owned.withLock { $0.tally.decodeFailures += 1 }
                report(.failed(path: failure.path, error: failure.message))
            },
            previous: owned.withLock { $0.session?.previous })
        let sink = source.sheets(context).pausableSink(
            receiveCompletion: { [self] _ in feed(.upstreamFinished(stop: stop)) },
            receiveValue: { [self] sheet in
                let kept = items(of: sheet)
                owned.withLock { $0.sheet = kept; $0.place = sheet.place }
                feed(.sheet(empty: kept.isEmpty, stop: stop))
                return false  // paused until the machine asks for the next sheet
            })
        owned.withLock { $0.sink = sink }
    }

    func save() {
        let (items, number, used) = owned.withLock { owned -> ([SheetItem], Int, Int) in
            owned.sheetNumber = owned.place?.number ?? owned.sheetNumber + 1
            defer { owned.sheet = [] }
            return (owned.sheet, owned.sheetNumber, (owned.place?.firstIndex).map { $0 - 1 } ?? owned.tally.summary.used)
        }
        let path = configuration.naming.path(forSheet: number)
        if configuration.dryRun {
            report(.planned(configuration.plan(items, sheet: number, firstIndex: used + 1, to: path)))
            queue.async { self.feed(.saved(.written(full: false))) }
            return
        }
        let tiles = items.compactMap(\.tile)
        let saver = SheetSaver(composer: RunStages.composer(configuration, budget: budget, workers: workers,
                                                                      instrumentation: instrumentation), writer: writer,
                               book: book, queue: saveQueue, instrumentation: instrumentation)
        let subscription = saver.save(tiles, sheet: number, firstIndex: used + 1, to: path)
            .sink(receiveCompletion: { [self] completion in
                      if case .failure(let error) = completion { queue.async { self.saved(.failure(error)) } }
                  },
                  receiveValue: { [self] sheet in queue.async { self.saved(.success(sheet)) } })
        owned.withLock { $0.saving = subscription }
    }

    func saved(_ result: Result<SaveOutcome, OutputError>) {
        switch result {
        case .success(.saved(let sheet)):
            owned.withLock { $0.saved = sheet }
            feed(.saved(.written(full: sheet.record.images.count == configuration.effectiveCap)))
        case .success(.nothing(let failures)):
            // Every image failed when decoded again: each still counts, and says why.
            reportFailures(failures)
            feed(.saved(.nothing))
        case .failure(let error):
            feed(.saved(error.code == .cancelled ? .cancelled : .failed(error.runFailure)))
        }
    }

    /// Once: what the source writes at the end (`--junit`), the state for
    /// the next run, the summary, the outcome.
    func end(interruption: ExitStatus?, failure: RunFailure?) {
        var failure = failure
        if let book { failure = finishBook(book, interruption: interruption, failure: failure) }
        let (sink, skipped) = owned.withLock { owned in
            defer { (owned.sink, owned.saving) = (nil, nil) }
            return (owned.sink, owned.skipped)
        }
        sink?.cancel()  // releases the whole chain, up to the walk
        source.close()
        if interruption == nil, failure == nil { failure = source.finish(skipped: skipped) }
        if interruption == nil, failure == nil {
            for notice in owned.withLock({ $0.tally.summary.passedOver.notices }) { report(.notice(notice)) }
        }
        let tally = owned.withLock { $0.tally }
        var facts = OutcomeFacts(interruption: interruption, failure: failure, summary: tally.summary,
                                 nothingToDo: OutcomeRules.nothingToDo(tally))
        source.adjust(&facts, skipped: skipped)
        let outcome = OutcomeRules.decide(facts)
        do {
            let session = owned.withLock { owned in
                defer { owned.session = nil }
                owned.outcome = outcome
                return owned.session
            }
            session?.keepState(source.recorded(outcome), tally, logger: logger)
        }  // the last reference to the session: the lock beside the output is released
        report(.finished(outcome))
        finished.signal()
    }
}
