import Dispatch
import FileFacts
import Locking
import Vips

/// A pair of `--diff` opened on the pipeline's queue: byte-identical files
/// are known `unchanged` here, before any header is read; otherwise each
/// side that exists has passed the header checks.
struct OpenedPair: Sendable {
    let pair: DiffPair
    var current: AcceptedImage?
    var baseline: AcceptedImage?
    var identical = false
    /// A side failed its header check (reported): the pair is not compared.
    var unreadable = false
}

/// What comparing one pair gave: its `compared` event, or the failure of
/// the side that could not be read (the pair is then not counted).
enum PairOutcome: Sendable {
    case compared(ComparedPair)
    /// `failures`: what to report now (a side's header check reported its own).
    case failed(DiffPair, [DecodeFailure])
}

/// Compares a pair of `--diff`: both pictures decoded whole at full size
/// (`ImageFile.full`), then `Difference`. Runs on a worker, once the decode
/// window has reserved what both decodes and the comparison hold (`cost`).
struct PairComparison: Sendable {
    let probe: Probe
    let settings: DiffSettings
    /// Counts the decodes running.
    var instrumentation: (any StageInstrumentation)? = nil
    /// A pair whose two pictures would hold more bytes than this (3 a
    /// pixel) is kept on disc while compared (`ImageFile.full`'s `onDisc`):
    /// 9/16 of the decode budget in a run (`DiffSheets`: 65 MiB by default,
    /// pages taller than about 1280x8900), so that a tall page keeps the
    /// run within its memory; ordinary pages, up to 1280x8000, stay in
    /// memory, as fast as before (a pair on disc costs about 60% more CPU:
    /// the files written, read back strip by strip, their pages faulted in
    /// again after each release).
    var discAbove = Int.max
    /// The changed pairs' differences and what their cells show.
    let kept = KeptDifferences(limit: 48 << 20)
    /// What a changed pair's cell is drawn from, made from both pictures
    /// and their difference while they are held (the sheets' stage says).
    var keeping: (@Sendable (ComparedPair, FullPicture, FullPicture, Difference) -> KeptCell?)? = nil
    /// `--diff-images`: writes the picture of the pair named by the path
    /// with the body given (handed the open file); where it went, or nil.
    var pictures: (@Sendable (PathName, (Int32) throws -> Void) -> PathName?)? = nil
    /// Whether a changed pair's difference is kept for its cell (not with
    /// `--dry-run`, which draws no cell).
    var keepsCells = true
    /// Whether both sides of a pair are decoded at once, on two threads
    /// (a run of more than one job): their memory is counted in `cost`
    /// either way.
    var bothSidesAtOnce = false

    /// Opens both sides; a side that fails its header check is reported
    /// `failed` (even what a collage would pass over as not an image or too
    /// large: a pair that cannot be compared must not pass a CI job) and
    /// the pair is not compared.
    func open(_ pair: DiffPair, report: (PipelineEvent) -> Void) -> OpenedPair {
        var opened = OpenedPair(pair: pair)
        if pair.inCurrent, pair.inBaseline, case .success(let a) = OpenFile.open(pair.current),
           case .success(let b) = OpenFile.open(pair.baseline), a.hasSameBytes(as: b) {
            opened.identical = true
            return opened
        }
        var usable = true
        func checked(_ path: PathName) -> AcceptedImage? {
            switch probe.check(path) {
            case .success(let image): return image
            case .failure(.rejected(let reason, let detail)):
                report(.failed(path: path, error: reason == .tooLarge ? "too large: " + detail : detail))
            case .failure(.failed(let message)):
                report(.failed(path: path, error: message))
            }
            usable = false
            return nil
        }
        if pair.inCurrent { opened.current = checked(pair.current) }
        if pair.inBaseline { opened.baseline = checked(pair.baseline) }
        opened.unreadable = !usable
        return opened
    }

    /// What comparing holds while it runs: each side's decoder and its
    /// whole picture (3 bytes a pixel), and the comparison's own memory at
    /// 2 bytes a pixel: the mask over the differing box (a byte a pixel at
    /// most), the first pass's judgements (2 bits a pixel), the regions
    /// judged as a whole (80 bytes each, one in 128 pixels at most) and the
    /// rows' alignment (a few words a row); the difference picture and the
    /// cell are made a row or a panel at a time (DiffPicture.c). (At the 10
    /// bytes once counted, two 1280x2000 pairs did not fit the default budget.)
    static func cost(_ opened: OpenedPair) -> WorkCost {
        guard !opened.identical, !opened.unreadable else { return .free }
        let sides = [opened.current, opened.baseline].compactMap { $0?.header }
        let decoders = sides.reduce(0) { $0 + $1.decodeBytes(forTile: $1.width, $1.height) + $1.pixelCount * 3 }
        let compared = opened.current != nil && opened.baseline != nil ? (sides.map(\.pixelCount).max() ?? 0) * 2 : 0
        return WorkCost(running: decoders + compared, held: 0)
    }

    /// What rendering a compared pair's cell holds: the cell and its
    /// panels when it is drawn from what comparing kept (counted while
    /// kept); else as comparing it, both pictures being read again, plus
    /// the cell.
    func cost(_ pair: ComparedPair, width: Int, height: Int) -> Int {
        if kept.draws(pair.relative, width: width, height: height) { return width * height * 3 * 2 }
        return pair.shape.width * pair.shape.height * 17 + width * height * 3 + 2 * ImageHeader.workingSet
    }

    func compare(_ opened: OpenedPair) -> PairOutcome {
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome = comparing(opened)
        guard case .compared(var compared) = outcome else { return outcome }
        compared.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return .compared(compared)
    }

    private func comparing(_ opened: OpenedPair) -> PairOutcome {
        let pair = opened.pair
        let settings = settings.applying(to: pair.relative)  // --rules
        let sides = [opened.current, opened.baseline].compactMap { $0?.header }
        func compared(_ status: PairStatus, _ pixels: Int = 0, _ percent: Double = 0, size: String? = nil,
                      _ difference: Difference? = nil, after: FullPicture? = nil, drawn: Bool = true) -> PairOutcome {
            var compared = ComparedPair(path: pair.current, baseline: pair.baseline, relative: pair.relative,
                                        status: status, pixels: pixels, percent: percent, size: size)
            compared.shape = ImageShape(width: sides.map(\.displayedWidth).max() ?? 1,
                                        height: sides.map(\.displayedHeight).max() ?? 1)
            (compared.raw, compared.shifts) = (difference?.raw ?? 0, difference?.shifts ?? [])
            compared.change = status == .changed ? difference?.change : nil
            compared.region = difference.flatMap { Self.region(status, $0) }
            compared.fails = settings.failOn.contains(status)
            if status != .unchanged, drawn { compared.differencePicture = picture(difference, after) }
            return .compared(compared)
        }
        /// `--diff-images`: the difference picture, or for an added or
        /// removed pair its picture's size all marked.
        @Sendable func picture(_ difference: Difference?, _ after: FullPicture?) -> PathName? {
            guard let pictures else { return nil }
            return pictures(pair.relative) { descriptor in
                if let difference, let after {
                    try difference.write(of: after, to: descriptor)
                } else if let header = (opened.current ?? opened.baseline)?.header {
                    try Difference.writeAllMarked(width: header.displayedWidth, height: header.displayedHeight,
                                                  to: descriptor)
                }
            }
        }
        if opened.identical { return compared(.unchanged) }
        if opened.unreadable { return .failed(pair, []) }
        guard let current = opened.current else {
            return compared(.removed, opened.baseline.map(\.header.pixelCount) ?? 0, 100)
        }
        guard let baseline = opened.baseline else { return compared(.added, current.header.pixelCount, 100) }
        let onDisc = keptOnDisc(pixels: baseline.header.pixelCount + current.header.pixelCount)
        let decoded: [Result<FullPicture, DecodeFailure>]
        if onDisc {  // one side after the other: the temporary files' space is said once
            let first = decode(baseline, onDisc: true)
            if case .failure(let failure) = first, failure.temporaryFile {  // the other side would say the same
                return .failed(pair, [DecodeFailure(path: pair.current, message: failure.message, temporaryFile: true)])
            }
            decoded = [first, decode(current, onDisc: true)]
        } else {
            decoded = decodeBoth(baseline, current)
        }
        guard case .success(let before) = decoded[0], case .success(let after) = decoded[1] else {
            return .failed(pair, decoded.compactMap { if case .failure(let failure) = $0 { failure } else { nil } })
        }
        do {
            let alone = runsAlone(pixels: max(before.width * before.height, after.width * after.height))
            let difference = try Difference.compare(before, after, options: settings.difference, threads: alone ? 2 : 1)
            let size = difference.sameSize ? nil : "\(before.width)x\(before.height) -> \(after.width)x\(after.height)"
            let status = Self.status(of: difference, tolerance: settings.tolerance)
            if ![.unchanged, .noise].contains(status), matchesAlternative(pair, after, settings) { return compared(.unchanged) }
            let keeps = keepsCells && status != .unchanged
            // The difference picture and the cell's panels each read both pictures: at once when it runs alone.
            let atOnce = keeps && alone && pictures != nil && keeping != nil
            let outcome = compared(status, difference.pixels, difference.percent, size: size, difference, after: after,
                                   drawn: !atOnce)
            guard keeps, case .compared(var pair) = outcome else { return outcome }
            var cell: KeptCell?
            if atOnce {
                let made = Locked<(PathName?, KeptCell?)>((nil, nil)), shown = pair
                DispatchQueue.concurrentPerform(iterations: 2) { task in
                    if task == 0 { let path = picture(difference, after); made.withLock { $0.0 = path } }
                    else { let panels = keeping?(shown, before, after, difference); made.withLock { $0.1 = panels } }
                }
                (pair.differencePicture, cell) = made.withLock { $0 }
            } else {
                cell = keeping?(pair, before, after, difference)
            }
            kept.keep(cell ?? KeptCell(difference: difference), for: pair.relative)
            return .compared(pair)
        } catch {
            return .failed(pair, [DecodeFailure(path: pair.current, message: "cannot compare: \(error)")])
        }
    }

    /// Whether the current picture matches (`unchanged` or `noise`) one of
    /// the baseline's accepted alternatives (`NAME~K.EXT`); each is read in
    /// turn, and one that cannot be read is passed over.
    private func matchesAlternative(_ pair: DiffPair, _ after: FullPicture, _ settings: DiffSettings) -> Bool {
        for path in pair.alternatives {
            if case .success(let a) = OpenFile.open(pair.current), case .success(let b) = OpenFile.open(path),
               a.hasSameBytes(as: b) {
                return true
            }
            guard case .success(let image) = probe.check(path),
                  case .success(let picture) = decode(image, onDisc: keptOnDisc(pixels: image.header.pixelCount
                                                                                    + after.width * after.height)),
                  let difference = try? Difference.compare(picture, after, options: settings.difference) else { continue }
            if [.unchanged, .noise].contains(Self.status(of: difference, tolerance: settings.tolerance)) { return true }
        }
        return false
    }

    /// Whether a pair whose larger picture has `pixels` runs alone, a core to spare: with jobs, its pictures
    /// and comparison (8 bytes a pixel) hold half the decode budget or more (`discAbove` is 9/16 of it).
    func runsAlone(pixels: Int) -> Bool { bothSidesAtOnce && pixels > discAbove / 9 }

    /// Whether a pair of pictures of `pixels` in all is kept on disc (`discAbove`).
    func keptOnDisc(pixels: Int) -> Bool { pixels > discAbove / 3 }

    /// Both sides decoded whole in memory, the baseline's first; at once
    /// on two threads with `bothSidesAtOnce`.
    func decodeBoth(_ baseline: AcceptedImage, _ current: AcceptedImage) -> [Result<FullPicture, DecodeFailure>] {
        guard bothSidesAtOnce else { return [baseline, current].map { decode($0) } }
        let results = Locked<[Result<FullPicture, DecodeFailure>?]>([nil, nil])
        DispatchQueue.concurrentPerform(iterations: 2) { side in
            let result = decode(side == 0 ? baseline : current)
            results.withLock { $0[side] = result }
        }
        return results.withLock { $0.map { $0! } }
    }

    /// One side decoded whole, in memory or kept on disc.
    func decode(_ image: AcceptedImage, onDisc: Bool = false) -> Result<FullPicture, DecodeFailure> {
        do {
            return .success(try (instrumentation?.decoding ?? { try $0() }) {
                try ImageFile.full(descriptor: image.file.descriptor, maxBuffer: probe.maxBuffer, onDisc: onDisc)
            })
        } catch {
            return .failure(DecodeFailure(path: image.path, message: String(describing: error),
                                          temporaryFile: error is TemporaryFileError))
        }
    }
}
