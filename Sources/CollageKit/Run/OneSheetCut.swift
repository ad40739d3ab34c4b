@preconcurrency import OpenCombine

/// The one sheet of a collage without `--sheets`, cut on headers before any
/// image is decoded: at its first `next()` it reads up to `--max` accepted
/// images (fewer when the input ends first) and lays them out, so that each
/// is decoded once, straight to its own frame, whether the sheet is full or
/// not. It then hands them out one at a time, as the decodes ask for them.
/// Asked for more (an image failed to decode and the cap takes the next in
/// its place), it reads one more image and gives it the frame of its slot
/// in a full sheet, as a sheet's images decoded ahead get; nothing is read
/// beyond what is asked for.
struct OneSheetCut: PullSource {
    private let images: () -> AcceptedImage?
    private let cap: Int
    private let layOut: ([ImageShape]) -> [Frame]
    private let slot: (AcceptedImage) -> Frame
    /// The sheet's images not handed out yet, the next last; nil before the cut.
    private var cut: [PlannedDecode]?

    /// `images` gives the next accepted image; `layOut` the frames of a
    /// sheet of those shapes; `slot` an image's frame in a full sheet.
    init(images: @escaping () -> AcceptedImage?, cap: Int, layOut: @escaping ([ImageShape]) -> [Frame],
         slot: @escaping (AcceptedImage) -> Frame) {
        (self.images, self.cap, self.layOut, self.slot) = (images, cap, layOut, slot)
    }

    mutating func next() -> PlannedDecode? {
        if cut == nil {
            var sheet: [AcceptedImage] = []
            while sheet.count < cap, let image = images() { sheet.append(image) }
            let frames = layOut(sheet.map(\.shape))
            cut = zip(sheet, frames).map { PlannedDecode(image: $0, frame: $1, last: false) }.reversed()
        }
        if let planned = cut?.popLast() { return planned }
        return images().map { PlannedDecode(image: $0, frame: slot($0), last: false) }
    }
}

extension RunStages {
    /// One collage placed by count: its images cut on headers first, each
    /// decoded once, to its own frame (`decode` holds a full sheet's slots,
    /// for an image that takes the place of one that failed).
    func oneSheet(_ chosen: (@Sendable () -> ChosenList)?, layout: any SheetLayout, decode: Decode)
        -> AnyPublisher<CutSheet, Never> {
        let (cap, canvas, nextImage) = (configuration.effectiveCap, configuration.canvas, nextAccepted(chosen))
        return cutDecoded(Publishers.Pull {
            OneSheetCut(images: nextImage(), cap: cap, layOut: { layout.layOut($0, on: canvas).frames },
                        slot: { decode.slot(of: $0) })
        }
        .orderedParallelMap(limits: configuration.windowLimits, budget: budget, workers: workers, queue: queue,
                            cost: { Decode.cost($0.image.header, to: $0.frame) }) { decode.decode($0.image, to: $0.frame) }
        .eraseToAnyPublisher())
    }

    /// What makes a pull of the accepted images one at a time, as
    /// `acceptedImages`' publisher of them reads them (`OneSheetCut` reads them so).
    private func nextAccepted(_ chosen: (@Sendable () -> ChosenList)?) -> @Sendable () -> () -> AcceptedImage? {
        let (walk, selection, configuration, workers, report) = (walk, selection, configuration, workers, reportPlanned)
        if let load = chosen {
            return {
                let reopening = Reopening(probe: configuration.probe, report: report, load: load)
                return { reopening.next() }
            }
        }
        guard configuration.headerReadAhead > 0 else {
            return { { while let file = walk.next() { if let image = selection(file) { return image } }; return nil } }
        }
        return {
            let ahead = ProbeAhead(walk, probe: configuration.probe, depth: configuration.headerReadAhead, workers: workers)
            return { while let checked = ahead.next() { if let image = selection(checked) { return image } }; return nil }
        }
    }
}
