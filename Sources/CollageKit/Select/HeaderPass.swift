import Dispatch

/// The header pass of a run that orders or groups by time: every input's
/// header is read (many at once, in `ProbeAhead`'s bounded window of open
/// files; never a pixel) and judged by the selection as any run judges it,
/// its file let go.
enum HeaderPass {
    /// Each image kept as a `DatedImage`, its header with it (what
    /// `--group-by` cuts its groups by).
    static func read<Source: PullSource>(_ walk: Source, selection: Selection, jobs: Int,
                                         workers: DispatchQueue) -> [DatedImage] where Source.Element == InputFile {
        var images: [DatedImage] = []
        each(walk, selection: selection, jobs: jobs, workers: workers) { accepted, taken in
            images.append(DatedImage(accepted, scanIndex: images.count, taken: taken))
        }
        return images
    }

    /// Each image kept as a row of a `PhotoTable`, its header let go with
    /// its file (a sort: read again for the few used), keyed by `key` of it
    /// and when it was taken; `added`, when given, is handed each row and
    /// its image still open (a pick's looks).
    static func table<Source: PullSource>(_ walk: Source, selection: Selection, jobs: Int, workers: DispatchQueue,
                                          added: ((Int, AcceptedImage) -> Void)? = nil,
                                          key: (AcceptedImage, TakenTime) -> Int64?) -> PhotoTable
        where Source.Element == InputFile {
        var table = PhotoTable()
        each(walk, selection: selection, jobs: jobs, workers: workers) { accepted, taken in
            table.append(path: accepted.path, stamp: accepted.file.stamp, key: key(accepted, taken),
                         partners: accepted.partners)
            added?(table.count - 1, accepted)
        }
        return table
    }

    private static func each<Source: PullSource>(_ walk: Source, selection: Selection, jobs: Int,
                                                 workers: DispatchQueue, _ body: (AcceptedImage, TakenTime) -> Void)
        where Source.Element == InputFile {
        let ahead = ProbeAhead(walk, probe: selection.probe, depth: depth(jobs: jobs), workers: workers)
        let now = TakenTime.now()
        while let checked = ahead.next() {
            guard let accepted = selection(checked) else { continue }
            body(accepted, TakenTime(header: accepted.header, path: accepted.path, stamp: accepted.file.stamp, now: now))
        }
    }

    /// Headers read at once: enough to hide each open's wait on slow
    /// storage, as `--plan` reads them.
    static func depth(jobs: Int) -> Int { max(16, 4 * jobs) }
}
