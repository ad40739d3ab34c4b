import Dispatch

extension RunStages {
    /// The images of a run that places them in an order of their headers
    /// (`--sort taken|mtime`, `--reverse`), or of one group of a
    /// `--group-by` job: every header read first (the group's, by the job),
    /// in order; the run opens again only those the cap and the sheets
    /// take, so that no image that is not used is opened for its pixels.
    /// With `--pick`, the images are those of the moments picked, in time
    /// order (each of the others was looked at once, small).
    /// Nil for a run in the scan's order, which selects as it walks.
    func chosenImages() -> (@Sendable () -> [ChosenImage])? {
        let pick = configuration.pick ? pickPass() : nil
        if let images = configuration.group?.images {
            guard let pick else { return { images } }
            let now = TakenTime.now()
            return {
                pick(images.enumerated().map { index, image in
                    DatedImage(image: image, scanIndex: index,
                               taken: TakenTime(header: image.header, path: image.path, stamp: image.stamp, now: now))
                })
            }
        }
        guard configuration.readsEveryHeader else { return nil }
        let (walk, selection, workers, stop) = (walk, selection, workers, stop)
        let (sort, reverse, jobs) = (configuration.sort, configuration.reverse, configuration.jobs)
        return {
            let images = HeaderPass.read(walk, selection: selection, jobs: jobs, workers: workers)
            // A signal ended the walk: what it read is not the order of the whole.
            if stop() { return [] }
            if let pick { return pick(images) }
            return images.sortedIndices(by: sort, reverse: reverse).map { images[$0].image }
        }
    }

    /// `--pick`: the pass that looks at a run's images and chooses its
    /// moments, within the run's decode budget; a shard other than the
    /// first tells nothing of it (every shard makes the same pick).
    private func pickPass() -> @Sendable ([DatedImage]) -> [ChosenImage] {
        let (budget, report, mutes) = (budget, reportPlanned, configuration.mutesScan)
        let pass = PickPass(probe: configuration.probe, jobs: configuration.jobs, workers: workers,
                            acquire: { budget.acquire($0) }, release: { budget.release($0) },
                            report: { if !mutes { report($0) } }, stop: stop)
        let (cap, stacks) = (configuration.pickCap, configuration.captions.stacks)
        return { images in
            pass.pick(images, cap: cap).map { chosen in
                stacks?.record(chosen.image.path, members: chosen.stack)
                return chosen.image
            }
        }
    }
}
