import Dispatch
import Locking
import Synchronization

/// The pick over the images of a run (or a group, or a folder) whose
/// headers were read in a header pass: each looked at once, small, at
/// most `jobs` at once within the decode budget, the results kept in the
/// input's order (so `--jobs` changes nothing); then the moments chosen,
/// told (`picked`, `stacked`, `-v`'s line), and handed on in time order.
///
/// What it holds for each photo is a row of the header pass's
/// `PhotoTable`, a fingerprint and a `PackedScore` (about 100 bytes and
/// its path's bytes), then while the moments are chosen four `Int32`s;
/// each event is told and let go.
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

    /// The rows of the images `cap` moments show (every moment's without
    /// a cap), in time order, and how many photos each stands for.
    /// `photos`' keys are their times (none where the time is the file's
    /// modification time).
    func pick(_ photos: PhotoTable, cap: Int?) -> [(row: Int, stack: Int)] {
        pick(photos, looked: look(photos), cap: cap)
    }

    /// The same, of photos already looked at (`LookAhead`).
    func pick(_ photos: PhotoTable, looked: (prints: [UInt64], scores: [PackedScore]),
              cap: Int?) -> [(row: Int, stack: Int)] {
        if stop() { return [] }  // what was looked at is not the whole: no pick
        let choice = Moments.choose(MomentPhotos(times: photos.keys, prints: looked.prints, scores: looked.scores),
                                    cap: cap)
        let moments = choice.moments
        var chosen: [(row: Int, stack: Int)] = []
        for (number, moment) in choice.picked.enumerated() {
            let best = Int(moments.best[Int(moment)]), size = moments.size(of: Int(moment))
            let path = photos.path(best), score = looked.scores[best].score
            report(.picked(PickedPhoto(path: path, moment: number + 1, members: size,
                                       score: PickedScore(sharpness: score.sharpness, exposure: 1 - score.clipped,
                                                          faces: score.faces, facesCut: score.facesCut,
                                                          rating: score.rating))))
            for member in moments.members(of: Int(moment)) where member != best {
                report(.stacked(path: photos.path(Int(member)), into: path))
            }
            chosen.append((best, size))
        }
        let count = looked.scores.reduce(0) { $0 + ($1.looked ? 1 : 0) }
        report(.pickTold(Self.told(choice, photos: count)))
        return chosen
    }

    /// `-v`'s line: how many were stacked, and how many left out and why.
    static func told(_ choice: MomentChoice, photos: Int) -> String {
        var parts = ["\(choice.stacked) stacked into their moment's best"]
        if choice.beyondCap > 0 { parts.append("\(choice.beyondCap) left out beyond the cap") }
        if choice.blurred > 0 { parts.append("\(choice.blurred) left out blurred") }
        if choice.blank > 0 { parts.append("\(choice.blank) left out blank") }
        if choice.rejected > 0 { parts.append("\(choice.rejected) left out rated -1") }
        return "pick: \(choice.picked.count) moments of \(photos) photos: " + parts.joined(separator: ", ")
    }

    /// Each image looked at once, at most `jobs` at once, its fingerprint
    /// and score kept; `PackedScore.failed` where the look failed (told
    /// `failed`). In the images' order.
    func look(_ photos: PhotoTable) -> (prints: [UInt64], scores: [PackedScore]) {
        let results = Locked((prints: [UInt64](repeating: 0, count: photos.count),
                             scores: [PackedScore](repeating: .failed, count: photos.count)))
        let next = Atomic(0)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, photos.count)) {
            workers.async(group: group) { [self] in
                while true {
                    let row = next.add(1, ordering: .relaxed).oldValue
                    guard row < photos.count, !stop() else { return }
                    guard let looked = look(photos.path(row), stamp: photos.stamps[row]) else { continue }
                    results.withLock { ($0.prints[row], $0.scores[row]) = (looked.fingerprint, PackedScore(looked.score)) }
                }
            }
        }
        group.wait()
        return results.withLock { results in
            defer { results = ([], []) }
            return results
        }
    }

    private func look(_ path: PathName, stamp: FileStamp) -> (fingerprint: UInt64, score: PickScore)? {
        switch Reopening.reopen(path, stamp: stamp, probe: probe, since: "its header was read", again: "run again") {
        case .failure(let failure):
            report(.failed(path: path, error: failure.message))
            return nil
        case .success(let opened):
            return look(opened)
        }
    }

    /// The look of an image open with its header read, within the decode budget.
    func look(_ image: AcceptedImage) -> (fingerprint: UInt64, score: PickScore)? {
        let cost = PickLook.cost(image.header)
        acquire(cost)
        defer { release(cost) }
        do {
            let looked = try PickLook.look(descriptor: image.file.descriptor, header: image.header,
                                           maxBuffer: probe.maxBuffer)
            report(.looked(path: image.path))
            return looked
        } catch {
            report(.failed(path: image.path, error: String(describing: error)))
            return nil
        }
    }
}
