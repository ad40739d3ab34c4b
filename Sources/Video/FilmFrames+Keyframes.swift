/// Keyframes alone (`decodesKeyframesOnly`): each time's frame the
/// keyframe nearest it, as the container's index says, each decoded once.
extension VideoFile {
    typealias Keyframe = (time: Double, decoded: Double)

    /// The keyframe before `key`: a seek to just before its decoding time.
    func keyframe(before key: Keyframe) throws(VideoError) -> Keyframe? {
        guard key.decoded > 0.0005, seek(to: key.decoded - 0.0005), let found = try keyframeTime(),
              found.time < key.time - 0.0005 else { return nil }
        return found
    }

    /// Whether the reader is put at `key`, to decode it next: a seek to its
    /// decoding time (MP4's index is by it), then on past the keyframes
    /// before it (where a container's index is by presentation time, the
    /// seek lands on the one before).
    func position(at key: Keyframe) throws(VideoError) -> Bool {
        guard seek(to: key.decoded + 0.0005), var found = try keyframeTime() else { return false }
        var steps = 0
        while found.time < key.time - 0.0005 {
            steps += 1
            guard steps <= 4, let next = try keyframeTime(skip: true) else { return false }
            found = next
        }
        return abs(found.time - key.time) < 0.0005
    }

    /// Whether a frame shows something: neither near-black nor flat.
    static func shows(_ frame: FrameLook) -> Bool { frame.mean >= darkMean && frame.spread >= flatSpread }

    /// Keyframes alone: `target`'s frame, the keyframe nearest to it (the
    /// container's index says which, without decoding), or when it does
    /// not show, the next nearest within its neighbourhood (`before` and
    /// `after` seconds), up to `filmCandidates` decoded, each once. nil
    /// when the nearest is `shown`, the frame before's: a film of fewer
    /// keyframes than times gives each once.
    func keyframe(at target: Double, before: Double, after: Double, shown: Double?, width: Int,
                          height: Int) throws(VideoError) -> FilmFrame? {
        let (low, high) = (target - before - 0.0005, target + after + 0.0005)
        // The keyframes either side of the time, as the container's index says.
        guard seek(to: target), let landed = try keyframeTime() else { throw VideoError("no frame at \(target) s") }
        var back: Keyframe?
        var on: Keyframe?
        if landed.time <= target + 0.0005 {
            (back, on) = (landed, try keyframeTime(skip: true))
        } else {
            (back, on) = (try keyframe(before: landed), landed)
        }
        var candidates: [FrameLook] = []
        var best: FrameLook?
        while candidates.count < Self.filmCandidates {
            let later: Bool
            switch (back, on) {
            case (nil, nil): later = false
            case (nil, _): later = true
            case (_, nil): later = false
            case let (earlier?, next?): later = next.time - target < target - earlier.time
            }
            guard let key = later ? on : back else { break }
            if !candidates.isEmpty && (key.time < low || key.time > high) {
                // Past the neighbourhood on this side.
                if later { on = nil } else { back = nil }
                continue
            }
            if candidates.isEmpty, let shown, abs(shown - key.time) < 0.0005 { return nil }
            guard try position(at: key), let frame = try nextFrame(skippingUntil: key.time) else {
                if later { on = nil } else { back = nil }
                continue
            }
            candidates.append(frame)
            if best == nil || Self.score(frame) > Self.score(best!) {
                try keep(width: width, height: height)
                best = frame
            }
            if Self.shows(frame) { break }
            // The next keyframe out on this side.
            if later { on = try keyframeTime() } else { back = try keyframe(before: key) }
        }
        guard let best else { throw VideoError("no frame at \(target) s") }
        if let shown, abs(shown - best.time) < 0.0005 { return nil }
        return FilmFrame(pixels: try keptPixels(), time: max(0, best.time), target: target,
                         passedOver: Self.passedOver(candidates, best: best))
    }
}
