import FileFacts
import Video
import Vips
import XMP

/// Videos: the header from FFmpeg (the stream's coded size, its rotation as
/// an orientation, its length), the tile from a poster frame
/// (`VideoFile.poster`) resized by libvips, with a play mark on it.
enum VideoPictures {
    /// The wall time all work on one video may take (header, or tile).
    static let timeLimit = 10.0
    /// The most one video's work may read: a poster near the start needs
    /// a few seconds of the stream, not a 4K film.
    static let byteLimit = 256 << 20

    static func header(descriptor: Int32, maxPixels: Int, maxBuffer: Int) throws -> ImageHeader {
        let video = try open(descriptor)
        let info = video.info
        guard info.width > 0, info.height > 0 else { throw VipsError(.load, "its video stream has no frame size") }
        let (pixels, overflow) = info.width.multipliedReportingOverflow(by: info.height)
        if overflow || pixels > maxPixels {
            throw VipsError(.tooLarge, "video frames of \(info.width)x\(info.height) are over --max-pixels \(maxPixels)")
        }
        // Its shape as shown: anamorphic samples stretched (`VideoInfo.shownWidth`).
        var header = ImageHeader(width: info.shownWidth, height: info.height, orientation: info.orientation,
                                 format: "video", bands: 3)
        header.media = .video(VideoFacts(duration: info.duration, decoderBytes: decoderBytes(info)))
        // Its rating and label, where a photo manager wrote them into the file (a sidecar still wins).
        header.take(embedded: video.xmp(limit: XMPPacket.maxBytes).map(XMPProperties.parse))
        let decoding = header.decodeBytes(forTile: 1, 1)
        if decoding > maxBuffer {
            throw VipsError(.tooLarge, "decoding \(info.codec) frames of \(info.width)x\(info.height) needs "
                            + "\(decoding >> 20) MiB at once, over the \(maxBuffer >> 20) MiB a single image may use "
                            + "(--decode-memory raises it)")
        }
        return header
    }

    /// The decoder's frames (`VideoInfo.decoderBytes`: its references or,
    /// for 4K, keyframes alone, at their depth) and the poster kept small.
    static func decoderBytes(_ info: VideoInfo) -> Int { info.decoderBytes }

    static func tile(descriptor: Int32, width: Int, height: Int, crop: CropMode, background: RGB,
                     header: ImageHeader, maxBuffer: Int) throws -> MediaTile {
        // The decoder is closed (its pictures and tables let go) before the
        // tile is made from the small copy: the two never peak together.
        let (poster, orientation) = try posterFrame(descriptor: descriptor, width: width, height: height)
        let frame = poster.pixels
        var tile = try frame.bytes.withUnsafeBytes { bytes in
            try ImageFile.tile(pixels: bytes, pixelWidth: frame.width, pixelHeight: frame.height, bands: 3,
                               orientation: orientation, width: width, height: height, crop: crop,
                               background: background)
        }
        tile.drawPlayMark()
        return MediaTile(pixels: tile, frameTime: poster.time)
    }

    /// The poster frame of the video open on `descriptor`, to cover
    /// `width` x `height` as shown, and the video's orientation; its
    /// decoder closed on return.
    private static func posterFrame(descriptor: Int32, width: Int, height: Int) throws -> (VideoPoster, Int) {
        let video = try open(descriptor)
        let quarter = video.info.orientation >= 5
        do {
            return (try video.poster(coverWidth: quarter ? height : width, coverHeight: quarter ? width : height),
                    video.info.orientation)
        } catch {
            throw VipsError(.load, "no poster frame: \(error.message)")
        }
    }

    private static func open(_ descriptor: Int32) throws -> VideoFile {
        if let missing = VideoFile.unavailable {
            throw VipsError(.unsupported, "a video, but FFmpeg's libraries are not installed (\(missing))")
        }
        do {
            return try VideoFile(descriptor: descriptor, seconds: timeLimit, maxBytes: byteLimit)
        } catch {
            throw VipsError(.load, error.message)
        }
    }
}

extension MediaFile {
    /// nil when videos can be read; else the line to show for `--video`.
    public static var videoUnavailable: String? {
        VideoFile.unavailable.map {
            "--video needs FFmpeg's libraries, which are not installed (\($0)): "
                + "sudo apt-get install libavformat59 libavcodec59 libswscale6"
        }
    }
}
