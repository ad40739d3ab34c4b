/// Images chosen on their headers in an earlier pass, opened again one at
/// a time as they are asked for (only the ones used are): each must still
/// be the file whose header was read (size and modification time), else it
/// is `failed` with a reason that says so and the next takes its place.
/// The ones that open are numbered in order, as the selection numbers
/// what it accepts.
///
/// Not Sendable, as no pull source needs to be (see `PullSource`): each
/// `Pull` subscription makes its own and is the only one to step it.
final class Reopening: PullSource {
    private let probe: Probe
    private let report: @Sendable (PipelineEvent) -> Void
    private let chosen: LazyList
    private var opened = 0

    /// `load` runs once, at the first `next()` (a header pass, or a group's list).
    init(probe: Probe, report: @escaping @Sendable (PipelineEvent) -> Void, load: @escaping () -> ChosenList) {
        (self.probe, self.report, chosen) = (probe, report, LazyList(load))
    }

    func next() -> AcceptedImage? {
        while let chosen = chosen.next() {
            switch Self.reopen(chosen.path, stamp: chosen.stamp, probe: probe,
                               since: "its header was read", again: "run again") {
            case .success(var image):
                image.partners = chosen.partners
                image.ordinal = opened
                opened += 1
                return image
            case .failure(let failure):
                report(.failed(path: chosen.path, error: failure.message))
            }
        }
        return nil
    }

    /// The image at `path`, opened and its header read, if it is still the
    /// file stamped `stamp` `since` then; else why not, ending with what to do (`again`).
    static func reopen(_ path: PathName, stamp: FileStamp, probe: Probe, since: String,
                       again: String) -> Result<AcceptedImage, ReopenFailure> {
        guard let now = FileStamp.of(path) else {
            return .failure(ReopenFailure("gone since \(since) (moved or deleted); \(again)"))
        }
        func changed(_ current: FileStamp) -> ReopenFailure? {
            guard current != stamp else { return nil }
            let what = current.size != stamp.size ? "its size (\(stamp.size) bytes then, \(current.size) now)"
                                                  : "its modification time"
            return ReopenFailure("changed since \(since): \(what); \(again)")
        }
        if let change = changed(now) { return .failure(change) }
        switch probe.check(path) {
        case .success(let accepted):
            if let change = changed(accepted.file.stamp) { return .failure(change) }
            return .success(accepted)
        case .failure(let failure):
            return .failure(ReopenFailure(Selection.text(failure)))
        }
    }
}

struct ReopenFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A list made when it is first asked for (a header pass), then handed on
/// one image at a time, each made as it is. Not Sendable (see `PullSource`).
final class LazyList: PullSource {
    private var load: (() -> ChosenList)?
    private var list = ChosenList([])
    private var position = 0

    init(_ load: @escaping () -> ChosenList) { self.load = load }

    func next() -> ImageToOpen? {
        if let load {
            list = load()
            self.load = nil
        }
        guard position < list.count else { return nil }
        defer { position += 1 }
        return list[position]
    }
}
