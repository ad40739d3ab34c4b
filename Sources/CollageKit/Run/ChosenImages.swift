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
    /// The header pass keeps a compact row per image (`PhotoTable`), no header.
    func chosenImages() -> (@Sendable () -> ChosenList)? {
        let pick = configuration.pick ? pickPass() : nil
        if let images = configuration.group?.images {
            guard let pick else { return { ChosenList(images.map(\.toOpen)) } }
            let now = TakenTime.now()
            return {
                var table = PhotoTable()
                for image in images {
                    let taken = TakenTime(header: image.header, path: image.path, stamp: image.stamp, now: now)
                    table.append(path: image.path, stamp: image.stamp, key: taken.pickTime, partners: image.partners)
                }
                return pick(table)
            }
        }
        guard configuration.readsEveryHeader else { return nil }
        let (walk, selection, workers, stop) = (walk, selection, workers, stop)
        let (sort, reverse, jobs) = (configuration.sort, configuration.reverse, configuration.jobs)
        return {
            // A pick looks at each photo as the pass hands it on, still open.
            let looks = pick.map { LookAhead($0.pass) }
            let table = HeaderPass.table(walk, selection: selection, jobs: jobs, workers: workers,
                                         added: looks.map { looks in { looks.look(row: $0, $1) } }) { image, taken in
                pick == nil ? taken.key(sort, stamp: image.file.stamp) : taken.pickTime
            }
            let looked = looks?.finish(rows: table.count)
            // A signal ended the walk: what it read is not the order of the whole.
            if stop() { return ChosenList([]) }
            if let pick { return pick(table, looked: looked) }
            return ChosenList(table, rows: table.sortedRows(reverse: reverse))
        }
    }

    /// `--pick`: the pass that looks at a run's images and chooses its
    /// moments, within the run's decode budget; a shard other than the
    /// first tells nothing of it (every shard makes the same pick).
    private func pickPass() -> ChosenMoments {
        let (budget, report, mutes) = (budget, reportPlanned, configuration.mutesScan)
        let pass = PickPass(probe: configuration.probe, jobs: configuration.jobs, workers: workers,
                            acquire: { budget.acquire($0) }, release: { budget.release($0) },
                            report: { if !mutes { report($0) } }, stop: stop)
        return ChosenMoments(pass: pass, cap: configuration.pickCap, stacks: configuration.captions.stacks)
    }
}

/// The moments `--pick` chooses of a table of photos, as the rows the run
/// opens again.
struct ChosenMoments: Sendable {
    let pass: PickPass
    let cap: Int?
    let stacks: StackSizes?

    /// The moments of `photos`, looked at now, or already (`looked`).
    func callAsFunction(_ photos: PhotoTable, looked: (prints: [UInt64], scores: [PackedScore])? = nil) -> ChosenList {
        // The pick's images are rows of the table, made one at a time as
        // they are opened: 50,000 moments (`--sheets`) hold 50,000 `Int`s.
        let chosen = looked.map { pass.pick(photos, looked: $0, cap: cap) } ?? pass.pick(photos, cap: cap)
        return ChosenList(photos, rows: chosen.map { chosen in
            stacks?.record(photos.path(chosen.row), members: chosen.stack)
            return chosen.row
        })
    }
}
