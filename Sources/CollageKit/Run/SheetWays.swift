@preconcurrency import OpenCombine

extension RunStages {
    /// The ways a collage run finds its sheets: one is decided per run
    /// (`way(_:layout:)`), and each is a small source over the same
    /// stages (the walk, the selection, the decode window, the cut). The
    /// images come walked and selected as they come, read ahead
    /// (`--plan`), or chosen by the header pass (`ChosenImages`: `--sort`,
    /// `--pick`, a group's); then:
    enum Way: Equatable {
        /// `--dry-run`: each sheet's headers, nothing decoded (`DryRun`);
        /// with `--shard` and `--sheets`, this shard's sheets of the whole run's cut.
        case dryRun(Shard?)
        /// `--from-plan`: the plan's sheet lines in place of the header
        /// stages, this shard's decoded (`PlannedSheets`).
        case planned(PathName, Shard)
        /// `--shard` with `--sheets`: sheets cut on every header, numbered
        /// over the whole run, this shard's decoded (`ShardedSheets`).
        case sharded(Shard)
        /// A layout that needs the whole sheet's shapes: each sheet cut on
        /// headers, then its images decoded to their frames.
        case cutOnHeaders
        /// `--sheets` placed by count: decoded ahead into the next sheets,
        /// then cut (`WalkedSheets`).
        case decodedAhead
        /// One collage placed by count: cut on headers, each image decoded
        /// once, to its own frame (`OneSheetCut`).
        case oneSheet
    }

    /// The way a run of `configuration`, laid out by `layout`, finds its sheets.
    static func way(_ configuration: CollageConfiguration, layout: any SheetLayout) -> Way {
        let shard = configuration.sheets ? configuration.shard : nil
        if configuration.dryRun { return .dryRun(shard) }
        if let plan = configuration.fromPlan { return .planned(plan, configuration.shard ?? Shard(index: 0, count: 1)!) }
        if let shard { return .sharded(shard) }
        if !layout.placesByCount { return .cutOnHeaders }
        return configuration.sheets ? .decodedAhead : .oneSheet
    }

    /// The run's sheets, each asked for by the sink, found the run's way.
    /// Decoding runs ahead of the cut by the decode window: with --sheets,
    /// into the next sheets until the tiles waiting hold
    /// `decodeWindowBytes` (or `decodeWindowImages` images), so no decoder
    /// idles while a giant image, a sheet's last image or its save runs on
    /// the other core; while a sheet is written only the window fills,
    /// nothing more is scanned. Without --sheets there is no next sheet to
    /// work ahead for: the one sheet is cut on headers (`OneSheetCut`) and
    /// each image decoded once, to its own frame.
    func sheets() -> AnyPublisher<CutSheet, Never> {
        let chosen = chosenImages()
        let accepted = acceptedImages(chosen)
        let layout = configuration.layout
        switch Self.way(configuration, layout: layout) {
        case .dryRun(let shard): return dryRun(accepted, shard: shard.map { shardCut(chosen: chosen, accepted, $0) })
        case .planned(let plan, let shard): return cutThenDecode(plannedSheets(plan, shard), layout: layout, decode: decoder())
        case .sharded(let shard):
            return cutThenDecode(shardCut(chosen: chosen, accepted, shard), layout: layout, decode: decoder())
        case .cutOnHeaders:
            let cut = accepted.sheets(of: configuration.effectiveCap, wholeInput: configuration.sheets)
                .map { CutImages(images: $0) }
            return cutThenDecode(cut, layout: layout, decode: decoder())
        case .decodedAhead: return decodedAhead(accepted, decode: slotted(decoder(), layout: layout))
        case .oneSheet: return oneSheet(chosen, layout: layout, decode: slotted(decoder(), layout: layout))
        }
    }

    /// The accepted images as they come: reopened in the header pass's
    /// order (`chosen`), their headers read ahead (`--plan`), or the walk
    /// selected one at a time.
    private func acceptedImages(_ chosen: (@Sendable () -> ChosenList)?) -> AnyPublisher<AcceptedImage, Never> {
        let (walk, selection) = (walk, selection)
        if let load = chosen {
            return Publishers.Pull { [configuration, reportPlanned] in
                Reopening(probe: configuration.probe, report: reportPlanned, load: load)
            }.eraseToAnyPublisher()
        }
        guard configuration.headerReadAhead > 0 else {
            return Publishers.Pull { walk }.compactMap { selection($0) }.eraseToAnyPublisher()
        }
        return Publishers.Pull { [configuration, workers] in
            ProbeAhead(walk, probe: configuration.probe, depth: configuration.headerReadAhead, workers: workers)
        }.compactMap { selection($0) }.eraseToAnyPublisher()
    }

    /// A shard's sheets, cut on every header; with an order of the
    /// headers, only this shard's images are opened again.
    private func shardCut(chosen: (@Sendable () -> ChosenList)?, _ accepted: AnyPublisher<AcceptedImage, Never>,
                          _ shard: Shard) -> AnyPublisher<CutImages, Never> {
        chosen.map { load in cutShard(chosen: Publishers.Pull { LazyList(load) }, shard) } ?? cutShard(accepted, shard)
    }

    /// The decoder of the run's images, to their frames.
    private func decoder() -> Decode {
        var decode = Decode(background: configuration.background, maxBuffer: configuration.probe.maxBuffer,
                            instrumentation: instrumentation,
                            keepsFile: Decode.canKeepFiles(2 * configuration.effectiveCap
                                                           + configuration.windowLimits.aheadCount + configuration.jobs),
                            signs: !configuration.flags.isEmpty)
        decode.partnerProbe = configuration.probe
        return decode
    }
}
