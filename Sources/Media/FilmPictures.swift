import Dispatch
import FileFacts
import Locking
import Video
import Vips

/// What a film's sheet says of it in its header: its stream's facts.
public struct FilmFacts: Sendable, Equatable {
    /// Its length, in seconds (0 when unknown).
    public let duration: Double
    /// The frame's width as shown (turned by its rotation), in pixels.
    public let width: Int
    /// The frame's height as shown, in pixels.
    public let height: Int
    /// Frames a second (0 when unknown).
    public let frameRate: Double
    /// The video codec's name ("h264", "hevc").
    public let codec: String
    /// Bits a second of the whole file (0 when unknown).
    public let bitRate: Int
    /// The audio codec's name ("" without audio).
    public let audioCodec: String
    /// The audio's channels (0 without audio).
    public let audioChannels: Int
    /// What its decoder holds at its peak by its pictures' estimate,
    /// decoded forward (`VideoInfo.forwardDecodeBytes`) and keyframes
    /// alone (`VideoInfo.keyframeDecodeBytes`).
    public var forwardBytes = 0, keyframeBytes = 0

    /// What the film's decoders hold where its decode may hold `limit`:
    /// one forward where it fits, else keyframes alone; up to `decoders`
    /// forward at once as `MediaFile.forwardDecoders` counts them.
    public func decoderBytes(within limit: Int, decoders: Int = 1) -> Int {
        guard forwardBytes <= min(limit, MediaFile.filmForwardLimit) else { return keyframeBytes }
        return forwardBytes * MediaFile.forwardDecoders(forwardBytes, within: limit, decoders: decoders)
    }

    /// A film's facts, as its stream says them.
    public init(duration: Double, width: Int, height: Int, frameRate: Double, codec: String, bitRate: Int,
                audioCodec: String, audioChannels: Int) {
        (self.duration, self.width, self.height, self.frameRate) = (duration, width, height, frameRate)
        (self.codec, self.bitRate, self.audioCodec, self.audioChannels) = (codec, bitRate, audioCodec, audioChannels)
    }
}

/// A tile of a film's sheet: the frame shown, resized to its cell, and its time.
public struct FilmTile: Sendable {
    /// The frame, at the cell's size, cropped as asked.
    public let pixels: PixelBuffer
    /// The time of the frame shown, in seconds.
    public let time: Double
    /// The time asked for, in seconds.
    public let target: Double
    /// Candidates near its time not taken, each with its time and why
    /// ("near-black", "flat", "blurred").
    public let passedOver: [(time: Double, reason: String)]
}

/// A film's tiles, and why they stopped short of those asked, if they did.
public struct FilmTiles: Sendable {
    /// The tiles, in time order.
    public let tiles: [FilmTile]
    /// FFmpeg's reason there are fewer tiles than asked, or nil.
    public let stopped: String?
    /// Times left out because their frame was the tile before's again
    /// (`FilmFrames.repeated`: a 4K film decoded at its keyframes alone).
    public var repeated = 0
}

extension MediaFile {
    /// The wall time a film's sheet may take, per frame asked (seeks and decodes).
    public static let filmSecondsPerFrame = 2.0
    /// The most a film's sheet may read, per frame asked.
    public static let filmBytesPerFrame = 64 << 20

    /// The facts of the video open on `descriptor`, or why it has none.
    public static func film(descriptor: Int32) throws -> FilmFacts {
        let info = try openFilm(descriptor, frames: 1).info
        guard info.width > 0, info.height > 0 else { throw VipsError(.load, "its video stream has no frame size") }
        let quarter = info.orientation >= 5
        var facts = FilmFacts(duration: info.duration, width: quarter ? info.height : info.shownWidth,
                              height: quarter ? info.shownWidth : info.height, frameRate: info.frameRate, codec: info.codec,
                              bitRate: info.bitRate, audioCodec: info.audioCodec, audioChannels: info.audioChannels)
        (facts.forwardBytes, facts.keyframeBytes) = (info.forwardDecodeBytes, info.keyframeDecodeBytes)
        return facts
    }

    /// Up to `count` tiles of the film open on `descriptor`, upright, each
    /// of the size `cellSize` gives for the number of tiles, cropped as
    /// `crop` says: its frames spread over the film
    /// (`VideoFile.spreadTimes`), or with `scenes` its `count` most
    /// distinct shots (`VideoFile.sceneTimes`), or with `every` one at each
    /// multiple of `every` seconds, or `times` if given; each the best of a
    /// few candidates near its time (`VideoFile.frames`), decoded at the cell's size.
    /// Up to `decoders` decoders of its own seek and decode at once, each a
    /// run of the times, as many as fit `forwardLimit` together (`forwardDecoders`).
    /// Decoded forward only where that decode's pictures fit `forwardLimit`
    /// (the room the run's budget has for them), else keyframes alone.
    public static func filmTiles(descriptor: Int32, count: Int, scenes: Bool = false, every: Double? = nil,
                                 times given: [Double]? = nil, decoders: Int = 1, forwardLimit: Int = filmForwardLimit,
                                 cellSize: (Int) -> (width: Int, height: Int), crop: CropMode,
                                 background: RGB) throws -> FilmTiles {
        var video: VideoFile? = try openFilm(descriptor, frames: count)
        video!.forwardLimit = forwardLimit
        let info = video!.info
        guard info.duration > 0 else { throw VipsError(.load, "its length is unknown or zero") }
        let times: [Double]
        if let given {
            times = given
        } else if let every, every > 0 {
            times = stride(from: 0.0, to: info.duration, by: every).map { $0 }
        } else if scenes {
            do { times = try video!.sceneTimes(count: count) } catch {
                throw VipsError(.load, "its shots could not be found: \(error.message)")
            }
        } else {
            times = VideoFile.spreadTimes(count: count, duration: info.duration)
        }
        let quarter = info.orientation >= 5
        let (cellWidth, cellHeight) = cellSize(max(1, times.count))
        // Half the cover size: `frames` decodes at twice it, the cell's own.
        let (coverWidth, coverHeight) = (max(1, (quarter ? cellHeight : cellWidth) / 2),
                                         max(1, (quarter ? cellWidth : cellHeight) / 2))
        let parts = min(times.count / 2, forwardDecoders(info.forwardDecodeBytes, within: forwardLimit, decoders: decoders))
        let found: FilmFrames
        if parts <= 1 || video!.decodesKeyframesOnly {
            found = video!.frames(at: times, coverWidth: coverWidth, coverHeight: coverHeight)
            video = nil  // its decoder let go before the tiles are made
        } else {
            // The first run decodes on the handle already open: one open a run.
            let first = FilmHandOver(video.take()!)
            found = try framesAtOnce(descriptor, times, parts: parts, first: first, coverWidth: coverWidth,
                                     coverHeight: coverHeight)
        }
        // A film that stopped short, or whose keyframes were fewer than the
        // times, has fewer, larger cells.
        let (width, height) = found.frames.count == times.count ? (cellWidth, cellHeight)
            : cellSize(max(1, found.frames.count))
        var tiles: [FilmTile] = []
        for frame in found.frames {
            let pixels = frame.pixels
            let tile = try pixels.bytes.withUnsafeBytes { bytes in
                try ImageFile.tile(pixels: bytes, pixelWidth: pixels.width, pixelHeight: pixels.height, bands: 3,
                                   orientation: info.orientation, width: width, height: height, crop: crop,
                                   background: background)
            }
            tiles.append(FilmTile(pixels: tile, time: frame.time, target: frame.target,
                                  passedOver: frame.passedOver.map { ($0.time, $0.reason.rawValue) }))
        }
        return FilmTiles(tiles: tiles, stopped: found.stopped, repeated: found.repeated)
    }

    /// The most a film's forward decode may hold, whatever the run's budget
    /// (`VideoInfo.fullDecodeLimit`).
    public static let filmForwardLimit = VideoInfo.fullDecodeLimit

    /// What one film's decoders at once may hold by their estimate: two
    /// 1080p H.264 ones as encoders write it (4 references, 2 B-frames: 9
    /// pictures of 4.7 MB, 42 MB each), one 10-bit 1080p HEVC, 1440p or 4K.
    public static let parallelDecodeLimit = 96 << 20

    /// How many decoders of `forwardBytes` each find a film's times at
    /// once: up to `decoders`, as many as fit `parallelDecodeLimit` and
    /// `limit` (the room the run's budget has for them); at least one.
    public static func forwardDecoders(_ forwardBytes: Int, within limit: Int, decoders: Int) -> Int {
        max(1, min(decoders, min(limit, parallelDecodeLimit) / max(1, forwardBytes)))
    }

    /// `times` cut into `parts` runs, each found by a decoder of its own on
    /// a worker (the first run by `first`'s, the film's handle already
    /// open), joined in order: what one decoder would find, sooner. A
    /// run that stops ends the film there, as one decoder would.
    private static func framesAtOnce(_ descriptor: Int32, _ times: [Double], parts: Int, first: FilmHandOver,
                                     coverWidth: Int, coverHeight: Int) throws -> FilmFrames {
        let size = (times.count + parts - 1) / parts
        let starts = Array(stride(from: 0, to: times.count, by: size))
        let runs = starts.map { Array(times[$0..<min($0 + size, times.count)]) }
        let nexts = starts.map { $0 + size < times.count ? times[$0 + size] : nil }
        let previouses = starts.map { $0 > 0 ? times[$0 - 1] : nil }
        let found = Locked([Result<FilmFrames, VipsError>?](repeating: nil, count: runs.count))
        DispatchQueue.concurrentPerform(iterations: runs.count) { index in
            let result = Result { () throws(VipsError) -> FilmFrames in
                let video: VideoFile
                if let handed = first.take(index) { video = handed } else {
                    video = try openFilm(descriptor, frames: runs[index].count)
                    video.forwardLimit = first.forwardLimit
                }
                return video.frames(at: runs[index], previous: previouses[index], next: nexts[index], coverWidth: coverWidth,
                                    coverHeight: coverHeight)
            }
            found.withLock { $0[index] = result }
        }
        var frames: [FilmFrame] = []
        var repeated = 0
        for result in found.withLock({ $0 }) {
            let part = try result!.get()
            repeated += part.repeated
            for frame in part.frames {
                // A run's first frame can be the run before's last (a film of
                // fewer frames than times): a sheet never shows one frame twice.
                if let last = frames.last, abs(last.time - frame.time) < 0.0005 {
                    repeated += 1
                } else {
                    frames.append(frame)
                }
            }
            if let stopped = part.stopped { return FilmFrames(frames: frames, stopped: stopped, repeated: repeated) }
        }
        return FilmFrames(frames: frames, stopped: nil, repeated: repeated)
    }

    private static func openFilm(_ descriptor: Int32, frames: Int) throws(VipsError) -> VideoFile {
        if let missing = VideoFile.unavailable {
            throw VipsError(.unsupported, "a video, but FFmpeg's libraries are not installed (\(missing))")
        }
        let frames = max(1, min(frames, 10_000))
        do {
            return try VideoFile(descriptor: descriptor, seconds: VideoPictures.timeLimit + filmSecondsPerFrame * Double(frames),
                                 maxBytes: VideoPictures.byteLimit + filmBytesPerFrame * frames)
        } catch {
            throw VipsError(.load, error.message)
        }
    }
}

/// A film's handle, opened for its facts (and its shots), handed over
/// once to the worker that finds the first run of its times, so the film
/// is not opened again for that run: the lock hands the `VideoFile`
/// (FFmpeg's handle, for one thread at a time) to exactly one caller and
/// then forgets it.
final class FilmHandOver: Sendable {
    private let video: Locked<VideoFile?>
    /// The handle's `VideoFile.forwardLimit`, for the other runs' handles.
    let forwardLimit: Int

    init(_ video: sending VideoFile) {
        forwardLimit = video.forwardLimit
        self.video = Locked(video)
    }

    /// The handle, for run 0 and only once; nil for any other run.
    func take(_ run: Int) -> VideoFile? {
        guard run == 0 else { return nil }
        return video.withLock { handle in
            let taken = handle
            handle = nil
            return taken
        }
    }
}
