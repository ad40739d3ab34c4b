@preconcurrency import OpenCombine
import Locking

/// A sheet's place in the whole run: its number and the index of its first
/// image among the images used (`{index}`). Without `--shard` the run counts
/// them as sheets are written; a shard sees only its own sheets, so it is
/// told, and its sheets are named and captioned as one run's would be.
struct SheetPlace: Equatable, Sendable {
    let number: Int
    let firstIndex: Int
}

/// A sheet cut on headers, before decoding.
struct CutImages: Sendable {
    let images: [AcceptedImage]
    var place: SheetPlace?
    var kept: RunState.Output?
}

/// A sheet as the sink receives it.
struct CutSheet: Sendable {
    var items: [SheetItem]
    var place: SheetPlace?
    /// Kept as the last run of this shard wrote it: reported, not written.
    var kept: RunState.Output?
    /// For the decode's scan: the sheet's last image is in.
    var complete = true
}

extension CollageConfiguration {
    /// A shard other than the first reads every header of a `--sheets` run
    /// but reports none of what it finds wrong (shard 0 does).
    var mutesScan: Bool { sheets && (shard?.index ?? 0) != 0 }

    /// The images a sheet of `count` keeps under `--require-even`.
    func evenCount(_ count: Int) -> Int { requireEven && count % 2 == 1 ? count - 1 : count }
}

extension RunStages {
    /// `--shard` with `--sheets`: every header is read and cut into the
    /// run's sheets, so that every shard agrees on the cut; each sheet is
    /// numbered over the whole run (those of other shards too, and their
    /// first indices, as `--require-even` leaves them), and only this
    /// shard's go on, before anything is decoded. The open files of the
    /// others' images are let go here.
    func cutShard<Accepted: Publisher>(_ accepted: Accepted, _ shard: Shard) -> AnyPublisher<CutImages, Never>
        where Accepted.Output == AcceptedImage, Accepted.Failure == Never {
        let keeper = SheetKeeper(configuration: configuration, previous: previous)
        return ownSheets(accepted, shard)
            .map { images, place in
                var cut = CutImages(images: images, place: place)
                cut.kept = keeper.kept(cut)
                return cut
            }
            .eraseToAnyPublisher()
    }

    /// `--shard` with `--sheets` in an order of the headers (`--sort`):
    /// the cut is made on the headers of the whole input, read once, and
    /// only this shard's sheets' images are opened again. One changed since
    /// its header was read is `failed` and leaves its sheet one short, so
    /// that the cut never depends on what another shard finds.
    func cutShard<Chosen: Publisher>(chosen: Chosen, _ shard: Shard) -> AnyPublisher<CutImages, Never>
        where Chosen.Output == ImageToOpen, Chosen.Failure == Never {
        let keeper = SheetKeeper(configuration: configuration, previous: previous)
        let (probe, report) = (configuration.probe, reportPlanned)
        return ownSheets(chosen, shard)
            .compactMap { images, place in
                let opened = images.compactMap { image -> AcceptedImage? in
                    switch Reopening.reopen(image.path, stamp: image.stamp, probe: probe,
                                            since: "its header was read", again: "run again") {
                    case .success(var accepted):
                        accepted.partners = image.partners
                        return accepted
                    case .failure(let failure):
                        report(.failed(path: image.path, error: failure.message))
                        return nil
                    }
                }
                guard !opened.isEmpty else { return nil }
                var cut = CutImages(images: opened, place: place)
                cut.kept = keeper.kept(cut)
                return cut
            }
            .eraseToAnyPublisher()
    }

    /// The run's sheets of `images`, each numbered over the whole run (and
    /// its first index, as `--require-even` leaves them), this shard's only.
    private func ownSheets<Images: Publisher>(_ images: Images, _ shard: Shard)
        -> AnyPublisher<([Images.Output], SheetPlace), Never> where Images.Failure == Never {
        let configuration = configuration
        // The next sheet's place (a counter rather than `scan`, which would
        // hold on to the last sheet's open files).
        let next = Locked(SheetPlace(number: 1, firstIndex: 1))
        return images
            .sheets(of: configuration.effectiveCap, wholeInput: true)
            .map { images in
                let count = configuration.evenCount(images.count)
                let place = next.withLock { place in
                    defer { place = SheetPlace(number: place.number + 1, firstIndex: place.firstIndex + count) }
                    return place
                }
                return (images, place)
            }
            .filter { shard.owns(sheet: $0.1.number) }
            .eraseToAnyPublisher()
    }
}

/// `--skip-unchanged` for one sheet of a shard: the sheet the last run of
/// this shard wrote is kept when it is still there as written (same size
/// and time) and was made from the same images, each unchanged since. The
/// options are the same (checked when the state was read), and the sheet's
/// number and first index follow from the options alone (every sheet before
/// it is full), so the same images make the same bytes.
struct SheetKeeper: Sendable {
    private let outputs: [PathName: RunState.Output]
    private let stamps: [PathName: FileStamp]
    private let configuration: CollageConfiguration

    init(configuration: CollageConfiguration, previous: RunState?) {
        self.configuration = configuration
        var outputs: [PathName: RunState.Output] = [:]
        var stamps: [PathName: FileStamp] = [:]
        for output in previous?.outputs ?? [] { outputs[output.path] = output }
        for input in previous?.inputs ?? [] { stamps[input.path] = input.stamp }
        self.outputs = outputs
        self.stamps = stamps
    }

    func kept(_ cut: CutImages) -> RunState.Output? {
        // A PDF is made whole or not at all: none of its pages is kept alone.
        guard !configuration.writesPDF, let place = cut.place,
              let output = outputs[configuration.naming.path(forSheet: place.number)],
              output.images == cut.images.prefix(configuration.evenCount(cut.images.count)).map(\.path),
              FileStamp.of(output.path) == output.stamp else { return nil }
        for image in cut.images where stamps[image.path] != FileStamp(image.file.status()) { return nil }
        return output
    }
}
