import Dispatch
import FileFacts
import Glibc
import Locking
import Media
@preconcurrency import OpenCombine
import Vips

/// The one sheet of a film (`--frames N`):
///
///     video ─► times (spread, or its most distinct shots) ─► each the best
///     of a few candidates near it, at its cell's size ─► one sheet
///
/// The frames are found and shrunk by `MediaFile.filmTiles` on one worker,
/// in the decode budget; a film that stops short (truncated, damaged) gives
/// the frames before the cut and a `failed` line saying why.
final class FilmSheets: SheetSource {
    let configuration: CollageConfiguration
    let video: PathName
    let header: FilmHeader

    init(configuration: CollageConfiguration, video: PathName, header: FilmHeader) {
        precondition(configuration.film != nil, "a film's run needs --frames' settings")
        (self.configuration, self.video, self.header) = (configuration, video, header)
    }

    /// `--vtt`: each tile's cue, as its sheet is made.
    private let cues = Locked(FilmCues())

    func sheets(_ context: SheetContext) -> AnyPublisher<CutSheet, Never> {
        let parts = Publishers.Sequence<[(Int, [Double]?)], Never>(sequence: Array(parts().enumerated()))
        return parts.flatMap(maxPublishers: .max(1)) { [self] index, times in
            Deferred {
                Future<CutSheet?, Never> { promise in
                    nonisolated(unsafe) let promise = promise  // called once, on the shell's queue
                    context.workers.async {
                        let sheet = self.sheet(times, number: index + 1, context)
                        context.queue.async { promise(.success(sheet)) }
                    }
                }
            }
        }
        .compactMap { $0 }
        .eraseToAnyPublisher()
    }

    /// The times of each sheet: with `--every`, each multiple of SECONDS
    /// (from 0) in sheets of `count`; else one sheet whose times are found
    /// when it is made (nil).
    private func parts() -> [[Double]?] {
        guard let every = configuration.film?.every else { return [nil] }
        let count = Swift.max(1, configuration.film!.count)
        let times = stride(from: 0.0, to: header.facts.duration, by: every).map { $0 }
        return stride(from: 0, to: times.count, by: count).map { Array(times[$0..<Swift.min($0 + count, times.count)]) }
    }

    /// `--vtt`: the cues of the sheets made, written when the run went well.
    func finish(skipped: Bool) -> RunFailure? {
        guard !skipped, let template = configuration.film?.vtt else { return nil }
        let path = FilmCues.path(template: template, video: video)
        let text = cues.withLock { $0 }.text(duration: header.facts.duration, at: path)
        do {
            _ = try AtomicWriter(stem: path).write(text, to: path)
            return nil
        } catch {
            return error.runFailure(prefix: "--vtt: ")
        }
    }

    /// The film's shape as shown: every tile's.
    private var shape: ImageHeader {
        ImageHeader(width: max(1, header.facts.width), height: max(1, header.facts.height), orientation: 1, format: "video")
    }

    /// The frames of the sheet laid out for `count` tiles.
    private func frames(_ count: Int) -> [Frame] {
        configuration.layout.layOut(Array(repeating: ImageShape(shape), count: count), on: configuration.canvas).frames
    }

    /// Sheet `number` (1-based) of the film: its frames at `times`, or found now (nil).
    private func sheet(_ times: [Double]?, number: Int, _ context: SheetContext) -> CutSheet? {
        let (film, report) = (configuration.film!, context.report)
        if configuration.keepsState, let stamp = FileStamp.of(video) {
            context.consider([RunState.Considered(path: video, stamp: stamp)])
        }
        let descriptor = video.withCString { $0.map { open($0, O_RDONLY | O_CLOEXEC) } ?? -1 }
        guard descriptor >= 0 else {
            let message = systemError(errno)
            context.queue.async { report(.failed(path: self.video, error: message)) }
            return nil
        }
        let file = OpenFile(descriptor: descriptor)
        let accepted = shape
        context.queue.async { report(.accepted(path: self.video, header: accepted)) }
        let planned = frames(times?.count ?? film.count)
        let crop = planned.first?.crop ?? .centre
        // The tiles, and the decoders by their pictures' estimate: decoded
        // forward only where that fits the run's budget beside the tiles,
        // else keyframes alone; with --jobs over 1, as many forward
        // decoders at once as fit that room (`MediaFile.forwardDecoders`).
        let decoders = max(1, configuration.jobs)
        let tileBytes = planned.reduce(0) { $0 + $1.image.width * $1.image.height * 4 }
        let forwardLimit = max(0, context.budget.limit - tileBytes)
        let cost = tileBytes + header.facts.decoderBytes(within: forwardLimit, decoders: decoders)
        let result: Result<FilmTiles, any Error> = context.budget.withBudget(cost) {
            Result {
                try MediaFile.filmTiles(descriptor: file.descriptor, count: film.count, scenes: film.scenes, times: times,
                                        decoders: decoders, forwardLimit: forwardLimit,
                                        cellSize: { count in
                                            let frame = self.frames(count).first?.image
                                            return (max(1, frame?.width ?? 1), max(1, frame?.height ?? 1))
                                        },
                                        crop: crop, background: configuration.background)
            }
        }
        let tiles: FilmTiles
        switch result {
        case .success(let found): tiles = found
        case .failure(let error):
            context.queue.async { report(.failed(path: self.video, error: "\(error)")) }
            return nil
        }
        if let stopped = tiles.stopped {
            let line = tiles.tiles.isEmpty ? stopped : "\(tiles.tiles.count) frame(s), then: \(stopped)"
            context.queue.async { report(.failed(path: self.video, error: line)) }
        }
        if tiles.repeated > 0 {
            let line = "\(video): \(tiles.tiles.count) distinct frame(s) for \(tiles.tiles.count + tiles.repeated) times: "
                + "it has fewer frames than that (or, read keyframe by keyframe where its full decode would pass "
                + "the memory bound, fewer keyframes)"
            context.queue.async { report(.notice(line)) }
        }
        guard !tiles.tiles.isEmpty else { return nil }
        let laid = frames(tiles.tiles.count)
        let items = zip(tiles.tiles, laid).map { found, frame -> SheetItem in
            var tile = DecodedTile(path: video, header: shape, pixels: found.pixels, frame: frame, file: nil)
            tile.frameTime = found.time
            tile.focus = TileFocus(focus: frame.crop.rawValue)
            tile.filmPassedOver = found.passedOver.map { "\($0.reason) at \(Captions.clock($0.time))" }
            return SheetItem(path: video, header: shape, tile: tile)
        }
        let sheet = OutputNaming(path: configuration.output, sheets: configuration.sheets).path(forSheet: number)
        cues.withLock { cues in
            for (found, frame) in zip(tiles.tiles, laid) {
                // A seek bar's cue starts at the time asked, the frame shown near it.
                let time = times == nil ? found.time : found.target
                cues.cues.append(FilmCues.Cue(time: time, sheet: sheet, rect: frame.image))
            }
        }
        return CutSheet(items: items, place: SheetPlace(number: number, firstIndex: (number - 1) * film.count + 1))
    }

    func leftOutNotice(_ tally: Tally) -> String? { nil }
}
