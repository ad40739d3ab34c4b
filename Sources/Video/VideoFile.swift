internal import CFFmpeg
import Glibc

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
        var raw = cav_info()
        cav_get_info(handle, &raw)
        info = VideoInfo(raw)
    }

    deinit { cav_close(handle) }

    /// Bytes FFmpeg has read so far.
    public var bytesRead: Int { Int(cav_bytes_read(handle)) }

    func seek(to seconds: Double) -> Bool { cav_seek(handle, seconds) == 0 }

    /// The next frame: its time and brightness; nil at the end.
    func nextFrame(skippingUntil seconds: Double) throws(VideoError) -> FrameLook? {
        var frame = cav_frame()
        var error = [CChar](repeating: 0, count: 256)
        switch cav_next_frame(handle, seconds, &frame, &error, error.count) {
        case 1: return FrameLook(time: frame.time, mean: frame.mean, spread: frame.spread)
        case 0: return nil
        default: throw VideoError(Self.text(error))
        }
    }

    /// Makes the last frame decoded the one `keptPixels` converts.
    func keep() { cav_keep(handle) }

    /// The kept frame as 8-bit RGB at `width` x `height` (at most its own size).
    func keptPixels(width: Int, height: Int) throws(VideoError) -> VideoPixels {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        var error = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeMutableBufferPointer {
            cav_kept_rgb(handle, Int32(width), Int32(height), $0.baseAddress, &error, error.count)
        }
        guard status == 0 else { throw VideoError(Self.text(error)) }
        return VideoPixels(width: width, height: height, bytes: bytes)
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
    /// Clockwise degrees to show it upright: 0, 90, 180, 270.
    public let rotation: Int
    /// Seconds; 0 when the container does not say.
    public let duration: Double
    /// Frames the decoder may hold for reference.
    public let referenceFrames: Int
    public let codec: String

    init(_ raw: cav_info) {
        width = Int(raw.width)
        height = Int(raw.height)
        rotation = Int(raw.rotation)
        duration = raw.duration.isFinite ? max(0, raw.duration) : 0
        referenceFrames = max(1, Int(raw.reference_frames))
        codec = withUnsafeBytes(of: raw.codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

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

/// A decoded frame's time and brightness (luma on 0-255).
struct FrameLook {
    let time: Double
    let mean: Double
    let spread: Double
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
