/// A frame chosen for a film's sheet: the best of a few candidates in its
/// neighbourhood (half the spacing of the times either side), never
/// near-black, flat or blurred while a better one is near.
public struct FilmFrame: Sendable {
    /// Its pixels, sRGB (tone-mapped if HDR), at the size asked.
    public let pixels: VideoPixels
    /// The time of the frame shown, in seconds.
    public let time: Double
    /// The time asked for.
    public let target: Double
    /// The candidates not taken for a fault, and which.
    public let passedOver: [PassedOverFrame]
}

/// A film's frames, and why they stopped short of the times asked, if they did.
public struct FilmFrames: Sendable {
    /// The frames, one for each time asked until one could not be had.
    public let frames: [FilmFrame]
    /// Why there is no frame for the next time (FFmpeg's reason), or nil.
    public let stopped: String?
    /// Times whose frame would have been the one before it again, left out:
    /// a film decoded keyframes alone (`decodesKeyframesOnly`)
    /// whose keyframes are fewer than the times asked.
    public var repeated = 0

    /// `frames`, and why they stopped short (nil when they did not).
    public init(frames: [FilmFrame], stopped: String?, repeated: Int = 0) {
        (self.frames, self.stopped, self.repeated) = (frames, stopped, repeated)
    }
}

/// A candidate frame not taken: its time and what was wrong with it.
public struct PassedOverFrame: Sendable, Equatable {
    /// Why a candidate frame was not shown.
    public enum Reason: String, Sendable {
        /// Its mean luma is under `VideoFile.darkMean`.
        case nearBlack = "near-black"
        /// One colour: its luma's spread is under `VideoFile.flatSpread`.
        case flat
        /// Less detail than the frame taken (blurred, or in motion).
        case blurred
    }

    /// The candidate's time, in seconds.
    public let time: Double
    /// Why it was passed over.
    public let reason: Reason
}

extension VideoFile {
    /// Candidates weighed for each frame of a film.
    public static let filmCandidates = 4
    /// A candidate with less than this share of the detail of the frame
    /// taken is blurred.
    public static let blurredDetail = 0.8
    /// The most seconds after its time a frame's first candidates are looked for.
    public static let filmWindow = 2.0
    /// A first frame this far after the target (seconds), or none, means
    /// the seek landed past it; it is aimed again up to `furthestBefore`
    /// seconds earlier (a byte seek lands within a group of pictures or
    /// two; a film cut short is not decoded again from far back).
    static let landedAfter = 0.1
    static let furthestBefore = 16.0

    /// `count` times spread over `duration`, leaving out the very start
    /// and end: the middle of each of `count` equal parts.
    public static func spreadTimes(count: Int, duration: Double) -> [Double] {
        guard count > 0, duration > 0 else { return [] }
        return (0..<count).map { duration * (Double($0) + 0.5) / Double(count) }
    }

    /// The frames of a film at `times` (ascending), each the best of the
    /// candidates in its neighbourhood: half the spacing of the times
    /// either side (`previous` and `next`, the times before the first and
    /// after the last, another decoder's, bound it as a time would).
    ///
    /// Decoded forward, a frame's first candidates are up to
    /// `filmCandidates` frames from its time on (within `filmWindow`
    /// seconds and its neighbourhood), by a seek to the keyframe before it
    /// and a decode forward; when none of them shows (all near-black or
    /// flat), a few more times are tried over the whole neighbourhood,
    /// nearest first (`neighbourTries`), each a seek and a short decode,
    /// until one shows. Keyframes alone (`decodesKeyframesOnly`),
    /// its candidates are keyframes, nearest first, each decoded once
    /// (`keyframe`). Shrunk as `poster` shrinks its frame, to cover
    /// `coverWidth` x `coverHeight`. A film that gives no frame at a time
    /// (truncated, damaged, past the deadline or the byte bound) gives the
    /// frames before it and why it stopped.
    public func frames(at times: [Double], previous: Double? = nil, next: Double? = nil, coverWidth: Int,
                       coverHeight: Int) -> FilmFrames {
        let (width, height) = posterSize(coverWidth: coverWidth, coverHeight: coverHeight)
        let keyframesOnly = decodesKeyframesOnly
        decodeKeyframesOnly(keyframesOnly)
        var made: [FilmFrame] = []
        var repeated = 0
        for (index, target) in times.enumerated() {
            let gap = index + 1 < times.count ? times[index + 1] - target : max(0, (next ?? info.duration) - target)
            let gapBefore = index > 0 ? target - times[index - 1] : previous.map { target - $0 } ?? gap
            let (before, after) = (max(0, min(target, gapBefore / 2)), max(0, gap / 2))
            do {
                if keyframesOnly {
                    // Keyframes alone, fewer than the times: a sheet never shows one frame twice.
                    guard let frame = try keyframe(at: target, before: before, after: after, shown: made.last?.time,
                                                   width: width, height: height) else {
                        repeated += 1
                        continue
                    }
                    made.append(frame)
                    continue
                }
                let frame = try frame(at: target, before: before, after: after, width: width, height: height)
                if let last = made.last, abs(last.time - frame.time) < 0.0005 {
                    repeated += 1
                    continue
                }
                made.append(frame)
            } catch {
                return FilmFrames(frames: made, stopped: error.message, repeated: repeated)
            }
        }
        return FilmFrames(frames: made, stopped: nil, repeated: repeated)
    }

    /// Times tried beyond a frame's first candidates when none of them
    /// shows: halfway and nearly all the way to each edge of its
    /// neighbourhood, nearest first.
    static let neighbourTries = [0.5, 0.95]

    private func frame(at target: Double, before: Double, after: Double, width: Int,
                       height: Int) throws(VideoError) -> FilmFrame {
        let window = min(Self.filmWindow, after)
        // A film without an index (MPEG-TS) is sought by its bytes, and the
        // first frame that decodes can be the keyframe after the target (or
        // none, near the end): it is aimed again earlier, further each time,
        // down to its very start.
        var aimed = 0.0
        var found = try candidates(at: target, from: target, window: window, width: width, height: height)
        while found.first.map({ $0 > target + Self.landedAfter }) ?? true, aimed < min(target, Self.furthestBefore) {
            aimed = min(target, Self.furthestBefore, aimed == 0 ? 1 : aimed * 2)
            found = try candidates(at: target, from: target - aimed, window: window, width: width, height: height)
        }
        var (candidates, best) = (found.candidates, found.best)
        // None shows, or none was found from the time on (the last frame of
        // a film of few frames a second starts before the last time): the
        // rest of the neighbourhood, either side, nearest first.
        var tries = Self.neighbourTries.flatMap { [target + $0 * after, target - $0 * before] }
        tries.removeAll { $0 < 0 || $0 >= info.duration || ($0 >= target && $0 <= target + window + 0.0005) }
        for time in tries {
            if let shown = best, Self.shows(shown) { break }
            guard seek(to: time) else { continue }
            var decoded = 0
            while decoded < Self.maxFrames, let frame = try nextFrame(skippingUntil: time - 0.25) {
                decoded += 1
                guard frame.time + 0.0005 >= time else { continue }
                candidates.append(frame)
                if best.map({ Self.score(frame) > Self.score($0) }) ?? true {
                    try keep(width: width, height: height)
                    best = frame
                }
                break
            }
        }
        guard let best else { throw VideoError("no frame at \(target) s") }
        return FilmFrame(pixels: try keptPixels(), time: max(0, best.time), target: target,
                         passedOver: Self.passedOver(candidates, best: best))
    }

    /// The candidates not taken, and why: near-black, flat, or blurred
    /// beside the one taken.
    static func passedOver(_ candidates: [FrameLook], best: FrameLook) -> [PassedOverFrame] {
        candidates.compactMap { candidate -> PassedOverFrame? in
            if candidate.mean < darkMean { return PassedOverFrame(time: candidate.time, reason: .nearBlack) }
            if candidate.spread < flatSpread { return PassedOverFrame(time: candidate.time, reason: .flat) }
            if candidate.detail < best.detail * blurredDetail {
                return PassedOverFrame(time: candidate.time, reason: .blurred)
            }
            return nil  // as good as the one taken
        }
    }

    /// The candidates for `target`'s frame, decoding from a seek to `from`
    /// (the best kept as pixels), and when the first frame decoded is.
    private func candidates(at target: Double, from: Double, window: Double, width: Int,
                            height: Int) throws(VideoError) -> (candidates: [FrameLook], best: FrameLook?, first: Double?) {
        guard seek(to: max(0, from)) else { throw VideoError("cannot seek to \(target) s") }
        let step = window / Double(Self.filmCandidates)
        var candidates: [FrameLook] = []
        var best: FrameLook?
        var first: Double?
        var decoded = 0
        // The last frame decoded before the time: the one on screen at it
        // when the stream ends before another starts (a film of a few
        // frames a second, its last time after its last frame's start) and
        // the time is within that frame's own span (a film cut short ends
        // further back, and says so).
        var onScreen: FrameLook?
        let span = 1.5 / (info.frameRate > 0 ? info.frameRate : 25)
        while decoded < Self.maxFrames, candidates.count < Self.filmCandidates {
            guard let frame = try nextFrame(skippingUntil: target - 0.25) else {
                if candidates.isEmpty, let onScreen, onScreen.time <= target + 0.0005, target - onScreen.time <= span {
                    try keep(width: width, height: height)  // the decoder's last frame, still held
                    return ([onScreen], onScreen, first)
                }
                break
            }
            decoded += 1
            if first == nil { first = frame.time }
            let due = target + Double(candidates.count) * step - 0.0005
            guard frame.time >= due else {
                onScreen = frame
                continue
            }
            if !candidates.isEmpty && frame.time > target + window { break }
            candidates.append(frame)
            if best == nil || Self.score(frame) > Self.score(best!) {
                try keep(width: width, height: height)
                best = frame
            }
        }
        return (candidates, best, first)
    }

    /// A frame's worth: any that is neither near-black nor flat before any
    /// that is, then the most detail (the least blurred); else the brightest spread.
    static func score(_ frame: FrameLook) -> Double {
        shows(frame) ? 10_000 + frame.detail : frame.spread + frame.mean / 100
    }

    /// The size a frame is shrunk to: covering `coverWidth` x
    /// `coverHeight` twice over where the frame is larger, never larger
    /// than the frame as shown (anamorphic samples stretched to their
    /// shape: `VideoInfo.shownWidth`).
    func posterSize(coverWidth: Int, coverHeight: Int) -> (width: Int, height: Int) {
        let shown = info.shownWidth
        let scale = min(1, 2 * max(Double(coverWidth) / Double(shown), Double(coverHeight) / Double(info.height)))
        return (min(shown, max(1, Int((Double(shown) * scale).rounded(.up)))),
                min(info.height, max(1, Int((Double(info.height) * scale).rounded(.up)))))
    }
}
