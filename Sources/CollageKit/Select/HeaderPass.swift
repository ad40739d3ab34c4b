import Dispatch

/// The header pass of a run that orders or groups by time: every input's
/// header is read (many at once, in `ProbeAhead`'s bounded window of open
/// files; never a pixel), judged by the selection as any run judges it,
/// and kept as a `DatedImage` with its file let go.
enum HeaderPass {
    static func read<Source: PullSource>(_ walk: Source, selection: Selection, jobs: Int,
                                         workers: DispatchQueue) -> [DatedImage] where Source.Element == InputFile {
        let ahead = ProbeAhead(walk, probe: selection.probe, depth: depth(jobs: jobs), workers: workers)
        let now = TakenTime.now()
        var images: [DatedImage] = []
        while let checked = ahead.next() {
            guard let accepted = selection(checked) else { continue }
            images.append(DatedImage(accepted, scanIndex: images.count, now: now))
        }
        return images
    }

    /// Headers read at once: enough to hide each open's wait on slow
    /// storage, as `--plan` reads them.
    static func depth(jobs: Int) -> Int { max(16, 4 * jobs) }
}
