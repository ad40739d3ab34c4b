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
}
