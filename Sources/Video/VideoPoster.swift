/// The poster frame: the first frame at or after a tenth of the video (at
/// most 3 s in) that is neither near-black nor flat; if it is, a few later
/// times are tried (a second or a tenth of the length apart), and the best
/// frame seen is taken. A video whose forward decode would hold more than
/// `forwardLimit` (a 4K one) is decoded keyframes alone, each alone
/// (`VideoFile.decodeKeyframesOnly`): its poster is the keyframe at or
/// before each time.
public struct VideoPoster: Sendable {
    /// Its pixels, at the size asked (`VideoFile.poster`).
    public let pixels: VideoPixels
    /// The time of the frame, in seconds.
    public let time: Double
    /// The frame's colour as its stream says it (the pixels are sRGB).
    public let colour: VideoColour
}

extension VideoFile {
    /// Luma below this mean (0-255) is near-black.
    static let darkMean = 24.0
    /// Luma spread (standard deviation) below this is flat: one colour.
    static let flatSpread = 6.0
    /// Later times tried after the first.
    static let laterTries = 4
    /// Frames decoded in all, whatever the times tried.
    public static let maxFrames = 600

    /// The poster frame, as RGB at a size that covers `coverWidth` x
    /// `coverHeight` of the stored frame (twice that where the frame is
    /// larger: the caller's resize does the rest), never larger than the frame.
    public func poster(coverWidth: Int, coverHeight: Int) throws(VideoError) -> VideoPoster {
        let (width, height) = posterSize(coverWidth: coverWidth, coverHeight: coverHeight)
        let keyframesOnly = decodesKeyframesOnly
        decodeKeyframesOnly(keyframesOnly)
        let first = min(info.duration / 10, 3)
        let step = max(1, info.duration / 10)
        var times = [first]
        for index in 1...Self.laterTries where first + Double(index) * step < info.duration {
            times.append(first + Double(index) * step)
        }
        var best: (time: Double, score: Double)?
        var decoded = 0
        search: for target in times {
            guard seek(to: target) else { continue }
            var last: FrameLook?
            while decoded < Self.maxFrames, let frame = try nextFrame(skippingUntil: target - 0.25) {
                decoded += 1
                last = frame
                if keyframesOnly || frame.time + 0.0005 >= target { break }
            }
            guard let frame = last else { continue }
            let score = frame.spread + (frame.mean >= Self.darkMean ? 1000 : 0)
            if best == nil || score > best!.score {
                try keep(width: width, height: height)
                best = (frame.time, score)
            }
            if frame.mean >= Self.darkMean && frame.spread >= Self.flatSpread { break search }
            if decoded >= Self.maxFrames { break }
        }
        if best == nil, seek(to: 0), let frame = try nextFrame(skippingUntil: 0) {
            try keep(width: width, height: height)  // a stream whose times lie: its first frame
            best = (frame.time, 0)
        }
        guard let best else { throw VideoError("no frame could be decoded") }
        return VideoPoster(pixels: try keptPixels(), time: max(0, best.time), colour: keptColour())
    }
}

extension VideoInfo {
    /// The most a film's or a poster's forward decode may hold by its
    /// pictures' estimate, whatever the run's budget: above it, keyframes alone.
    public static let fullDecodeLimit = 64 << 20

    /// What one frame costs the decoder: its planes and its per-frame
    /// tables (motion fields, about 3/4 of a byte a pixel in HEVC).
    public var decodedFrameBytes: Int { frameBytes + width * height * 3 / 4 }

    /// What a forward decode holds at its peak: the pictures the stream
    /// declares, the one being decoded, the one given and the one measured.
    public var forwardDecodeBytes: Int { decodedFrameBytes * (referenceFrames + 3) }

    /// What decoding keyframes alone holds, counted as three pictures: the
    /// keyframe being decoded, the motion tables FFmpeg makes for the
    /// references it names (their pictures one stand-in row), and the
    /// converted copy and its scaler.
    public var keyframeDecodeBytes: Int { decodedFrameBytes * 3 }

    /// Whether a decode within `limit` bytes reads keyframes alone: its
    /// forward decode would hold more.
    public func decodesKeyframesOnly(within limit: Int) -> Bool { forwardDecodeBytes > min(limit, Self.fullDecodeLimit) }

    /// Whether posters decode keyframes alone (within `fullDecodeLimit`).
    public var decodesKeyframesOnly: Bool { decodesKeyframesOnly(within: Self.fullDecodeLimit) }

    /// What a decode within `limit` holds at its peak in the decoder.
    public func decoderBytes(within limit: Int) -> Int {
        decodesKeyframesOnly(within: limit) ? keyframeDecodeBytes : forwardDecodeBytes
    }

    /// What decoding a poster holds at its peak in the decoder.
    public var decoderBytes: Int { decoderBytes(within: Self.fullDecodeLimit) }
}
