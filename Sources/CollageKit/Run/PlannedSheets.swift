@preconcurrency import OpenCombine

extension RunStages {
    /// `--from-plan FILE`: the sheets come from the plan instead of the
    /// headers. Its lines are read one at a time; what the scan found is
    /// reported by the first shard only (as with `--shard` alone), and of
    /// the sheets only this shard's images are opened: each must still be
    /// the file the plan saw (size and modification time), else it is
    /// `failed` and its sheet is one short, as when an image fails to
    /// decode. The sheet keeps its number and first index from the plan.
    func plannedSheets(_ plan: PathName, _ shard: Shard) -> AnyPublisher<CutImages, Never> {
        let (report, consider, probe) = (reportPlanned, considerPlanned, configuration.probe)
        let mutes = configuration.mutesScan
        let keeper = SheetKeeper(configuration: configuration, previous: previous)
        let offset = configuration.fromPlanOffset
        let stacks = configuration.captions.stacks
        return Publishers.Pull { PlanLines(plan, offset: offset) }
            .compactMap { line -> CutImages? in
                if let event = line.scanEvent {
                    if !mutes { report(event) }
                    return nil
                }
                guard let number = line.sheet, shard.owns(sheet: number), let first = line.first,
                      let images = line.images else { return nil }
                var accepted: [AcceptedImage] = []
                for image in images {
                    let path = image.path.path
                    if let members = image.stack { stacks?.record(path, members: members) }
                    switch Self.open(image, probe: probe) {
                    case .success(let opened):
                        consider(RunState.Considered(path: path, stamp: image.stamp))
                        accepted.append(opened)
                    case .failure(let failure):
                        report(.failed(path: path, error: failure.message))
                    }
                }
                guard !accepted.isEmpty else { return nil }
                var cut = CutImages(images: accepted, place: SheetPlace(number: number, firstIndex: first))
                cut.kept = keeper.kept(cut)
                return cut
            }
            .eraseToAnyPublisher()
    }

    /// The image the plan names, opened and its header read, if it is
    /// still the file the plan saw; else why not.
    private static func open(_ image: PlanImage, probe: Probe) -> Result<AcceptedImage, ReopenFailure> {
        Reopening.reopen(image.path.path, stamp: image.stamp, probe: probe, since: "the plan was made",
                         again: "plan again")
    }
}
