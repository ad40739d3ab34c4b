/// What the shell does with a sheet it receives, beside saving it.
extension CollageRun {
    /// `--require-even`: an odd set loses its last image, and says so.
    func evenSet(_ items: [SheetItem]) -> [SheetItem] {
        guard configuration.requireEven, items.count % 2 == 1, let last = items.last else { return items }
        owned.withLock { $0.tally.droppedForEven += 1 }
        report(.notice("--require-even: left out \(last.path) to keep an even number of images"))
        return Array(items.dropLast())
    }

    /// A sheet written (or kept) goes into the state for the next run; a
    /// shard keeps that state after every sheet (see `OutputSession.keepProgress`).
    func recordOutput(_ output: RunState.Output) {
        let (session, tally) = owned.withLock { owned in
            owned.tally.outputs.append(output)
            return (owned.session, owned.tally)
        }
        session?.keepProgress(tally, logger: logger)
    }

    /// The images of a sheet received to save: none when it is kept as the
    /// last run of this shard wrote it (`--shard --skip-unchanged`).
    func items(of sheet: CutSheet) -> [SheetItem] {
        guard let output = sheet.kept else { return evenSet(sheet.items) }
        report(.unchanged(output: output.path, images: output.images))
        recordOutput(output)
        return []
    }

    /// A sheet saved while it was the run's: its images' failures when
    /// decoded again, its flags, where each image went, the file, the state.
    func publish(_ sheet: SavedSheet) {
        reportFailures(sheet.composed.failures)
        // A PDF's pages are kept once the PDF is in place (see `finishBook`).
        if configuration.keepsState, sheet.record.page == nil, let stamp = FileStamp.of(sheet.record.output) {
            recordOutput(RunState.Output(path: sheet.record.output, stamp: stamp, images: sheet.record.images))
        }
        let flags = flagger?.check(sheet.composed.tiles)
        for (index, (tile, frame)) in zip(sheet.composed.tiles, sheet.composed.frames).enumerated() {
            if let standIn = tile.standIn { report(.notice(standIn)) }
            if let problem = tile.focus?.problem { report(.notice("\(tile.path): XMP face regions ignored: \(problem)")) }
            for flag in flags?[index] ?? [] { report(.flagged(flag)) }
            report(.placed(path: tile.path, sheet: sheet.record.sheet, index: index, rect: frame.image,
                           label: sheet.composed.labels?[index],
                           origin: TileOrigin(source: tile.source, duration: tile.header.duration,
                                              frame: tile.frameTime, focus: tile.focus?.focus ?? frame.crop.rawValue)))
            if let passedOver = tile.filmPassedOver, let time = tile.frameTime {
                report(.frame(FilmFramePlaced(path: tile.path, time: time, output: sheet.record.output, cell: index,
                                              passedOver: passedOver)))
            }
        }
        for notice in sheet.composed.notices { report(.notice(notice)) }
        if let stacks = configuration.captions.stacks {
            let stacked = sheet.composed.tiles.reduce(0) { $0 + stacks.members($1.path) - 1 }
            report(.pickTold("\(sheet.record.output): \(sheet.composed.tiles.count) moments, standing for "
                             + "\(stacked) more photos stacked into them"))
        }
        var record = sheet.record
        record.group = configuration.group?.name
        report(.written(record))
    }

    /// Images that failed when decoded again for their sheet's frames.
    func reportFailures(_ failures: [DecodeFailure]) {
        for failure in failures {
            owned.withLock { $0.tally.decodeFailures += 1 }
            report(.failed(path: failure.path, error: failure.message))
        }
    }

    func noticeLeftOut() {
        if let notice = source.leftOutNotice(owned.withLock { $0.tally }) { report(.notice(notice)) }
    }
}

extension CollageRun {
    /// `-o NAME.pdf`, at the end: after a run that went well the PDF is
    /// completed and put in place (told by a `document` event, and kept in
    /// the state for the next run); otherwise it is removed, and NAME.pdf
    /// left as it was. The failure that ends the run, if any.
    func finishBook(_ book: PDFBook, interruption: ExitStatus?, failure: RunFailure?) -> RunFailure? {
        guard interruption == nil, failure == nil else {
            book.discard()
            return failure
        }
        do throws(OutputError) {
            guard let (pages, images) = try book.commit() else { return nil }
            if configuration.keepsState, let stamp = FileStamp.of(book.path) {
                recordOutput(RunState.Output(path: book.path, stamp: stamp, images: images))
            }
            report(.document(output: book.path, pages: pages))
            return nil
        } catch where error.code == .cancelled {
            return RunFailure(status: stop ?? .interrupted,
                              message: "interrupted before the PDF was complete: '\(book.path)' is as it was")
        } catch {
            return error.runFailure
        }
    }
}
