import Dispatch
import FileFacts
import Synchronization

/// What one photo's look left of it: no pixels.
struct LookedPhoto: Sendable {
    let fingerprint: UInt64
    let score: PickScore
}

/// The pick over the images of a run (or a group, or a folder) whose
/// headers were read in a header pass: each looked at once, small, at
/// most `jobs` at once within the decode budget, the results kept in the
/// input's order (so `--jobs` changes nothing); then the moments chosen,
/// told (`picked`, `stacked`, `-v`'s line), and handed on in time order.
struct PickPass: Sendable {
    let probe: Probe
    let jobs: Int
    let workers: DispatchQueue
    /// Takes (blocking) and gives back `bytes` of the run's decode budget.
    let acquire: @Sendable (Int) -> Void
    let release: @Sendable (Int) -> Void
    let report: @Sendable (PipelineEvent) -> Void
    /// Whether a signal asked the run to stop: no further photo is looked at.
    var stop: @Sendable () -> Bool = { false }

    /// The images `cap` moments show (every moment's without a cap), in time order,
    /// and how many photos each stands for.
    func pick(_ images: [DatedImage], cap: Int?) -> [(image: ChosenImage, stack: Int)] {
        let looked = look(images)
        if stop() { return [] }  // what was looked at is not the whole: no pick
        var candidates: [PickCandidate] = []
        for (index, image) in images.enumerated() {
            guard let photo = looked[index] else { continue }
            let time = image.taken.source == .mtime ? nil : image.taken.instant
            candidates.append(PickCandidate(index: index, time: time, fingerprint: photo.fingerprint, score: photo.score))
        }
        let outcome = Moments.choose(candidates, cap: cap)
        let scores = Dictionary(uniqueKeysWithValues: candidates.map { ($0.index, $0.score) })
        var chosen: [(image: ChosenImage, stack: Int)] = []
        for (number, moment) in outcome.picked.enumerated() {
            let best = images[moment.best!].image, score = scores[moment.best!]!
            report(.picked(PickedPhoto(path: best.path, moment: number + 1, members: moment.members.count,
                                       score: PickedScore(sharpness: score.sharpness, exposure: 1 - score.clipped,
                                                          faces: score.faces, facesCut: score.facesCut,
                                                          rating: score.rating))))
            for member in moment.members where member != moment.best {
                report(.stacked(path: images[member].image.path, into: best.path))
            }
            chosen.append((best, moment.members.count))
        }
        report(.pickTold(Self.told(outcome, photos: candidates.count)))
        return chosen
    }

    /// `-v`'s line: how many were stacked, and how many left out and why.
    static func told(_ outcome: PickOutcome, photos: Int) -> String {
        let stacked = outcome.picked.reduce(0) { $0 + $1.members.count - 1 }
        var parts = ["\(stacked) stacked into their moment's best"]
        if !outcome.beyondCap.isEmpty {
            let blurred = outcome.blurred.isEmpty ? "" : " (\(outcome.blurred.count) of them blurred)"
            parts.append("\(outcome.beyondCap.count) left out beyond the cap\(blurred)")
        }
        if !outcome.blank.isEmpty { parts.append("\(outcome.blank.count) left out blank") }
        if !outcome.rejected.isEmpty { parts.append("\(outcome.rejected.count) left out rated -1") }
        return "pick: \(outcome.picked.count) moments of \(photos) photos: " + parts.joined(separator: ", ")
    }

    /// Each image looked at once, at most `jobs` at once; nil where the
    /// look failed (told `failed`). In the images' order.
    func look(_ images: [DatedImage]) -> [LookedPhoto?] {
        let results = Mutex([LookedPhoto?](repeating: nil, count: images.count))
        let next = Atomic(0)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, images.count)) {
            workers.async(group: group) { [self] in
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < images.count, !stop() else { return }
                    let looked = look(images[index].image)
                    results.withLock { $0[index] = looked }
                }
            }
        }
        group.wait()
        return results.withLock { $0 }
    }

    private func look(_ image: ChosenImage) -> LookedPhoto? {
        switch Reopening.reopen(image.path, stamp: image.stamp, probe: probe, since: "its header was read",
                                again: "run again") {
        case .failure(let failure):
            report(.failed(path: image.path, error: failure.message))
            return nil
        case .success(let opened):
            let cost = PickLook.cost(opened.header)
            acquire(cost)
            defer { release(cost) }
            do {
                let looked = try PickLook.look(descriptor: opened.file.descriptor, header: opened.header,
                                               maxBuffer: probe.maxBuffer)
                report(.looked(path: image.path))
                return LookedPhoto(fingerprint: looked.fingerprint, score: looked.score)
            } catch {
                report(.failed(path: image.path, error: String(describing: error)))
                return nil
            }
        }
    }
}
