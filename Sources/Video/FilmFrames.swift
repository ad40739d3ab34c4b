/// A frame chosen for a film's sheet: the best of a few candidates from
/// its time on, never near-black, flat or blurred while a better one is
/// near.
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
    /// a film decoded keyframes alone (`VideoInfo.decodesKeyframesOnly`)
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
    /// The most seconds after its time a frame's candidates are looked for.
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

    /// The frames of a film at `times` (ascending), each the best of up to
    /// `filmCandidates` frames from its time on, within a window of at
    /// most `filmWindow` seconds and half the gap to the next time: each
    /// found by a seek to the keyframe before it and a decode forward (a
    /// 4K film, keyframes alone: `VideoInfo.decodesKeyframesOnly`). Shrunk
    /// as `poster` shrinks its frame, to cover `coverWidth` x `coverHeight`.
    /// A film that gives no frame at a time (truncated, damaged, past the
    /// deadline or the byte bound) gives the frames before it and why it
    /// stopped. `next`, the time after the last (another decoder's first),
    /// bounds the last frame's window as a time after it would.
    public func frames(at times: [Double], next: Double? = nil, coverWidth: Int, coverHeight: Int) -> FilmFrames {
        let (width, height) = posterSize(coverWidth: coverWidth, coverHeight: coverHeight)
        decodeKeyframesOnly(info.decodesKeyframesOnly)
        var made: [FilmFrame] = []
        var repeated = 0
        for (index, target) in times.enumerated() {
            let gap = index + 1 < times.count ? times[index + 1] - target : max(0, (next ?? info.duration) - target)
            let window = max(0, min(Self.filmWindow, gap / 2))
            do {
                let frame = try frame(at: target, window: window, width: width, height: height)
                // Keyframes alone, fewer than the times: a sheet never shows one frame twice.
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

    private func frame(at target: Double, window: Double, width: Int, height: Int) throws(VideoError) -> FilmFrame {
        // A film without an index (MPEG-TS) is sought by its bytes, and the
        // first frame that decodes can be the keyframe after the target (or
        // none, near the end): it is aimed again earlier, further each time,
        // down to its very start.
        var before = 0.0
        var found = try candidates(at: target, from: target, window: window, width: width, height: height)
        while found.first.map({ $0 > target + Self.landedAfter }) ?? true, before < min(target, Self.furthestBefore) {
            before = min(target, Self.furthestBefore, before == 0 ? 1 : before * 2)
            found = try candidates(at: target, from: target - before, window: window, width: width, height: height)
        }
        let (candidates, best) = (found.candidates, found.best)
        guard let best else { throw VideoError("no frame at \(target) s") }
        let passed = candidates.compactMap { candidate -> PassedOverFrame? in
            if candidate.mean < Self.darkMean { return PassedOverFrame(time: candidate.time, reason: .nearBlack) }
            if candidate.spread < Self.flatSpread { return PassedOverFrame(time: candidate.time, reason: .flat) }
            if candidate.detail < best.detail * Self.blurredDetail {
                return PassedOverFrame(time: candidate.time, reason: .blurred)
            }
            return nil  // as good as the one taken
        }
        return FilmFrame(pixels: try keptPixels(), time: max(0, best.time), target: target, passedOver: passed)
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
        while decoded < Self.maxFrames, candidates.count < Self.filmCandidates,
              let frame = try nextFrame(skippingUntil: target - 0.25) {
            decoded += 1
            if first == nil { first = frame.time }
            let due = target + Double(candidates.count) * step - 0.0005
            guard frame.time >= due || (info.decodesKeyframesOnly && candidates.isEmpty) else { continue }
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
        let shows = frame.mean >= darkMean && frame.spread >= flatSpread
        return shows ? 10_000 + frame.detail : frame.spread + frame.mean / 100
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
