internal import CFFmpeg
import Glibc
import Synchronization
import ToneMap

/// A video read by Debian's FFmpeg (loaded with dlopen on first use): its
/// stream's size, rotation and length, and a poster frame as 8-bit RGB
/// pixels. One owner of FFmpeg's handle; no FFmpeg type leaves this target.
/// Not for two threads at once (each decode opens its own).
///
/// Every bit of work on one file is bounded: FFmpeg reads through an AVIO
/// context of ours (`pread`, at most `maxBytes`), a deadline cuts reading
/// and decoding off (`seconds` of wall time from `init`), the decoder runs
/// on one thread, and the poster search decodes at most `maxFrames`.
public final class VideoFile {
    private let handle: OpaquePointer
    public let info: VideoInfo

    /// nil when FFmpeg's libraries load; else what is missing.
    public static var unavailable: String? {
        var error = [CChar](repeating: 0, count: 256)
        return cav_load(&error, error.count) == 0 ? nil : text(error)
    }

    public init(descriptor: Int32, seconds: Double, maxBytes: Int) throws(VideoError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let handle = cav_open(descriptor, seconds, Int64(maxBytes), &error, error.count) else {
            throw VideoError(Self.text(error))
        }
        self.handle = handle
        Self.openCount.add(1, ordering: .relaxed)
        var raw = cav_info()
        cav_get_info(handle, &raw)
        info = VideoInfo(raw)
    }

    deinit { cav_close(handle) }

    private static let openCount = Atomic<Int>(0)

    /// Frames the decoder has given so far (instrumentation: the work of
    /// a pass, frames skipped undecoded not counted).
    public private(set) var framesGiven = 0

    /// Videos opened in this process so far (instrumentation: a film's
    /// sheet opens it once a run of its times).
    public static var opened: Int { openCount.load(ordering: .relaxed) }

    /// The container's own XMP packet (a rating or label a photo manager
    /// wrote into the file), at most `limit` bytes of it; nil when it has none.
    public func xmp(limit: Int) -> [UInt8]? {
        guard let packet = cav_xmp(handle) else { return nil }
        return Array(UnsafeRawBufferPointer(start: packet, count: strnlen(packet, limit + 1)))
    }

    /// The most a forward decode of this video may hold by its pictures'
    /// estimate (`VideoInfo.forwardDecodeBytes`): the room the run's
    /// budget has for it beside what else it holds, at most
    /// `VideoInfo.fullDecodeLimit`. Above it, keyframes alone are decoded.
    public var forwardLimit = VideoInfo.fullDecodeLimit

    /// Whether this video is decoded keyframes alone: its forward decode
    /// would not fit `forwardLimit`.
    public var decodesKeyframesOnly: Bool { info.decodesKeyframesOnly(within: forwardLimit) }

    /// Bytes FFmpeg has read so far.
    public var bytesRead: Int { Int(cav_bytes_read(handle)) }

    /// The most pictures the decoder has held at once so far: what its
    /// decode really cost, in pictures of `VideoInfo.decodedFrameBytes`.
    public var peakPictures: Int { Int(cav_peak_pictures(handle)) }

    func seek(to seconds: Double) -> Bool { cav_seek(handle, seconds) == 0 }

    /// Keyframes alone: the keyframe `nextFrame` decodes next (`skip`: the
    /// one after it), read from the container without decoding it: its
    /// time, and the time it is decoded at (what a seek to it aims at);
    /// nil at the end.
    func keyframeTime(skip: Bool = false) throws(VideoError) -> (time: Double, decoded: Double)? {
        var (time, decoded) = (0.0, 0.0)
        var error = [CChar](repeating: 0, count: 256)
        switch cav_keyframe_time(handle, skip ? 1 : 0, &time, &decoded, &error, error.count) {
        case 1: return (time, decoded)
        case 0: return nil
        default: throw VideoError(Self.text(error))
        }
    }

    /// The next frame: its time and brightness; nil at the end.
    func nextFrame(skippingUntil seconds: Double) throws(VideoError) -> FrameLook? {
        var frame = cav_frame()
        var error = [CChar](repeating: 0, count: 256)
        switch cav_next_frame(handle, seconds, &frame, &error, error.count) {
        case 1:
            framesGiven += 1
            let thumb = withUnsafeBytes(of: frame.thumb) { [UInt8]($0) }
            return FrameLook(time: frame.time, mean: frame.mean, spread: frame.spread, detail: frame.detail,
                             thumb: thumb)
        case 0: return nil
        default: throw VideoError(Self.text(error))
        }
    }

    /// Decode keyframes alone (no frame refers to another: the decoder
    /// holds one or two frames, not its reference set).
    func decodeKeyframesOnly(_ on: Bool) { cav_keyframes_only(handle, on ? 1 : 0) }

    /// Makes the last frame decoded the one to show: converted now with
    /// its stream's matrix and range and shrunk by swscale straight to
    /// `width` x `height` (at most its own size), 16 bits a sample; no
    /// decoder frame is held for it.
    func keep(width: Int, height: Int) throws(VideoError) {
        var error = [CChar](repeating: 0, count: 256)
        guard cav_keep(handle, Int32(width), Int32(height), &error, error.count) == 0 else {
            throw VideoError(Self.text(error))
        }
    }

    /// The kept frame's colour: its matrix, range, primaries, transfer
    /// and light levels.
    func keptColour() -> VideoColour { VideoColour(handle) }

    /// The kept frame as 8-bit sRGB: as it is for SDR BT.709 or BT.601
    /// video; HDR (PQ, HLG) tone-mapped and wide primaries (BT.2020, P3)
    /// brought into sRGB's by `ToneMap`, from the 16-bit samples of the
    /// already shrunk frame.
    ///
    /// Our own tone mapper, not libavfilter's graph (`zscale`, `tonemap`):
    /// the graph works on whole frames in linear float (a 4K frame as
    /// `gbrpf32le` is 100 MB, more than a run's whole budget), where ours
    /// maps the few pixels of the tile after swscale has shrunk the frame;
    /// it needs libavfilter and libzimg loaded beside the decoder; FFmpeg
    /// 5.1's `tonemap` has no BT.2390 and clips out-of-gamut colours channel
    /// by channel; and HEIF photos go through `ToneMap`, so a phone's HLG
    /// video and its HLG photo of the same scene look the same on a sheet.
    func keptPixels() throws(VideoError) -> VideoPixels {
        var width: Int32 = 0, height: Int32 = 0
        guard let samples = cav_kept_rgb16(handle, &width, &height), width > 0, height > 0 else {
            throw VideoError("no frame kept")
        }
        let (w, h) = (Int(width), Int(height))
        let buffer = UnsafeBufferPointer(start: samples, count: w * h * 3)
        let colour = keptColour()
        guard colour.tone.needsMapping else {
            return VideoPixels(width: w, height: h, bytes: buffer.map { UInt8((UInt32($0) * 255 + 32767) / 65535) })
        }
        guard let mapped = ToneMap.sRGB8([buffer], layout: .interleaved(channels: 3), width: w, height: h,
                                         rowStride: w * 3, bits: 16, source: colour.tone) else {
            throw VideoError("cannot tone-map a frame of \(w)x\(h)")
        }
        return VideoPixels(width: w, height: h, bytes: mapped)
    }

    static func text(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// What a video's best stream says.
public struct VideoInfo: Sendable, Equatable {
    /// The coded frame size, before rotation.
    public let width: Int
    public let height: Int
    /// A sample's width to its height as shown (1 but for anamorphic video).
    public let sampleAspect: Double
    /// Clockwise degrees to show it upright: 0, 90, 180, 270.
    public let rotation: Int
    /// Seconds; 0 when the container does not say.
    public let duration: Double
    /// Frames the decoder may hold besides the one it decodes, as the
    /// stream's parameter sets declare them (HEVC's decoded picture
    /// buffer less one; H.264's reference frames and its reordering).
    public let referenceFrames: Int
    public let codec: String
    /// The deepest sample's bits: 8, 10, 12.
    public let bits: Int
    /// Bytes of one decoded frame's planes (two a sample over 8 bits).
    public let frameBytes: Int
    /// Frames a second (the stream's average); 0 when unknown.
    public let frameRate: Double
    /// The file's bits a second; 0 when unknown.
    public let bitRate: Int
    /// The best audio stream's codec ("aac"), "" when there is none.
    public let audioCodec: String
    /// Its channels (2 for stereo), 0 when there is no audio.
    public let audioChannels: Int

    init(_ raw: cav_info) {
        width = Int(raw.width)
        height = Int(raw.height)
        let aspect = Double(raw.sample_aspect_num) / Double(max(1, raw.sample_aspect_den))
        // A stream that says nothing, or something absurd, is shown 1:1.
        sampleAspect = raw.sample_aspect_num > 0 && raw.sample_aspect_den > 0 && (0.1...10).contains(aspect) ? aspect : 1
        rotation = Int(raw.rotation)
        duration = raw.duration.isFinite ? max(0, raw.duration) : 0
        referenceFrames = max(1, Int(raw.reference_frames))
        codec = withUnsafeBytes(of: raw.codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        bits = Int(raw.bits)
        frameBytes = max(0, Int(clamping: raw.frame_bytes))
        frameRate = raw.frame_rate.isFinite ? max(0, raw.frame_rate) : 0
        bitRate = max(0, Int(clamping: raw.bit_rate))
        audioCodec = withUnsafeBytes(of: raw.audio_codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        audioChannels = max(0, Int(raw.audio_channels))
    }

    /// The frame's width as shown, before rotation: its coded width
    /// stretched by its sample aspect (a DVD's 720x576 at 64:45: 1024).
    public var shownWidth: Int { max(1, Int((Double(width) * sampleAspect).rounded())) }

    /// The rotation as an EXIF orientation (1, 6, 3, 8).
    public var orientation: Int {
        switch rotation {
        case 90: return 6
        case 180: return 3
        case 270: return 8
        default: return 1
        }
    }
}

/// A decoded frame's time, brightness (luma on 0-255), detail (the mean
/// difference of neighbouring samples of a 64x64 copy: low when blurred
/// or flat) and fingerprint.
struct FrameLook {
    let time: Double
    let mean: Double
    let spread: Double
    let detail: Double
    /// The luma as 8x8 block means: the frame's fingerprint.
    var thumb: [UInt8] = []
}

/// 8-bit RGB pixels of a frame, rows packed.
public struct VideoPixels: Sendable {
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]
}

public struct VideoError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
