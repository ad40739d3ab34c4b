/// A film's shots, from a cheap pass: the frame at each of evenly spread
/// times (reached from the keyframe before it, frames nothing refers to
/// skipped, or that keyframe itself when it is more than `sceneReach`
/// before; keyframes alone for 4K), each reduced to a fingerprint (its
/// luma as 8x8 block means, from swscale's 64x64 copy).
extension VideoFile {
    /// The most times looked at in the pass.
    public static let sceneSamples = 96
    /// The most seconds the pass decodes forward from a keyframe to a
    /// time: a keyframe further before it is that time's sample (a film
    /// keyed every 10 s costs a keyframe most samples, not 125 frames each).
    public static let sceneReach = 4.0
    /// Fingerprints further apart than this (`distance`) belong to
    /// different shots.
    public static let shotDistance = 0.3

    /// The times of the `count` most distinct shots, in time order: the
    /// frame at each of up to `sceneSamples` spread times is decoded and
    /// fingerprinted (an encoder need not put a keyframe at a cut); consecutive ones alike make a shot; of
    /// the shots, the `count` whose fingerprints are furthest from one
    /// another are taken, each at the middle of what the pass saw of it;
    /// near-black and flat frames (fades, black credits) are no shot. A film of
    /// fewer shots still gives `count` times: each shot once, the rest
    /// spread over the longest shots (`shares`), so that no shot is shown
    /// twice while another is not shown.
    public func sceneTimes(count: Int) throws(VideoError) -> [Double] {
        guard count > 0, info.duration > 0 else { return [] }
        let keyframesOnly = decodesKeyframesOnly
        decodeKeyframesOnly(keyframesOnly)
        let samples = min(Self.sceneSamples, max(16, 4 * count))
        var seen: [FrameLook] = []
        for time in Self.spreadTimes(count: samples, duration: info.duration) {
            guard seek(to: time) else { continue }
            var reached: FrameLook?
            var decoded = 0
            while decoded < Self.maxFrames, let frame = try nextFrame(skippingUntil: time - 0.25) {
                decoded += 1
                reached = frame
                if keyframesOnly || frame.time + 0.0005 >= time { break }
                // The keyframe is far before the time (a long GOP): it stands for it, one decode for the sample.
                if decoded == 1 && frame.time + Self.sceneReach < time { break }
            }
            // Near-black and flat frames (fades' ends, black credits) are no shot.
            guard let frame = reached, frame.mean >= Self.darkMean, frame.spread >= Self.flatSpread else { continue }
            if let last = seen.last, abs(last.time - frame.time) < 0.0005 { continue }
            seen.append(frame)
        }
        var shots: [[FrameLook]] = []
        for frame in seen.sorted(by: { $0.time < $1.time }) {
            if let last = shots.last?.last, Self.distance(last.thumb, frame.thumb) <= Self.shotDistance {
                shots[shots.count - 1].append(frame)
            } else {
                shots.append([frame])
            }
        }
        guard shots.count < count, !shots.isEmpty else {
            return Self.mostDistinct(shots, count: count).sorted().map { index in
                let shot = shots[index]
                return (shot.first!.time + shot.last!.time) / 2
            }
        }
        // Fewer shots than times: each shot once, the rest spread over the longest.
        let step = info.duration / Double(samples)
        let spans = shots.map { (start: max(0, $0.first!.time - step / 2), end: min(info.duration, $0.last!.time + step / 2)) }
        let given = Self.shares(spans.map { $0.end - $0.start }, count: count)
        return shots.indices.flatMap { index in
            let (start, end, frames) = (spans[index].start, spans[index].end, given[index])
            return (0..<frames).map { start + (Double($0) + 0.5) / Double(frames) * (end - start) }
        }.sorted()
    }

    /// How many of `count` frames each of shots of `lengths` (seconds) gets,
    /// where the shots are fewer: one each, then each further frame to the
    /// shot whose frames would each stand for the most time.
    public static func shares(_ lengths: [Double], count: Int) -> [Int] {
        var given = Array(repeating: 1, count: lengths.count)
        for _ in lengths.count..<max(lengths.count, count) {
            let index = lengths.indices.max { lengths[$0] / Double(given[$0]) < lengths[$1] / Double(given[$1]) }!
            given[index] += 1
        }
        return given
    }

    /// How far apart two fingerprints (8x8 luma block means) are: the
    /// mean difference of their blocks' standard scores (each block less
    /// the mean, over the spread), so that a fade, which scales a shot,
    /// keeps it one shot, plus a little for the difference of their means
    /// (a quarter for 128 levels). Infinite when they differ in size.
    public static func distance(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        func scores(_ values: [UInt8]) -> (mean: Double, scores: [Double]) {
            let mean = Double(values.reduce(0) { $0 + Int($1) }) / Double(values.count)
            let variance = values.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(values.count)
            let spread = max(variance.squareRoot(), 2)
            return (mean, values.map { (Double($0) - mean) / spread })
        }
        let (x, y) = (scores(a), scores(b))
        let shape = zip(x.scores, y.scores).reduce(0.0) { $0 + abs($1.0 - $1.1) } / Double(a.count)
        return shape + abs(x.mean - y.mean) / 128 * 0.25
    }

    /// The indices of `count` shots furthest from one another: the first
    /// the one furthest from the others' mean, then each the one whose
    /// nearest chosen shot is furthest.
    static func mostDistinct(_ shots: [[FrameLook]], count: Int) -> [Int] {
        guard shots.count > count else { return Array(shots.indices) }
        let prints = shots.map { $0[$0.count / 2].thumb }
        let mean = (0..<64).map { block in UInt8(prints.reduce(0) { $0 + Int($1[block]) } / prints.count) }
        var chosen: [Int] = []
        var candidates = Array(shots.indices)
        while chosen.count < count, !candidates.isEmpty {
            let worth = { (index: Int) -> Double in
                chosen.isEmpty ? distance(prints[index], mean) : chosen.map { distance(prints[index], prints[$0]) }.min()!
            }
            let best = candidates.max { worth($0) < worth($1) }!
            chosen.append(best)
            candidates.removeAll { $0 == best }
        }
        return chosen
    }
}
