import FileFacts
import Vips

/// The stages' one door to pictures: "this input's header", "this input's
/// picture as a tile of this size". The file's content decides who answers:
/// libvips for images, LibRaw for RAW photos (`RawPictures`), FFmpeg for
/// videos (`VideoPictures`); the stages never know which did. Errors are
/// `VipsError`s with the same codes whoever answered (`.unsupported` and
/// `.tooLarge` reject, anything else fails).
public enum MediaFile {
    /// The header only: no pixels decoded. RAW photos and videos are read
    /// with their own libraries, within the same limits as images.
    public static func header(descriptor: Int32, maxPixels: Int = .max, maxBuffer: Int = StructureCheck.bufferLimit,
                              options: MediaOptions = MediaOptions()) throws -> ImageHeader {
        switch try StructureCheck.content(descriptor: descriptor) {
        case .raw:
            guard options.raw != .skip else { throw VipsError(.unsupported, "a RAW photo, left out by --raw skip") }
            return try RawPictures.header(descriptor: descriptor, maxPixels: maxPixels, maxBuffer: maxBuffer,
                                          usePreview: options.raw != .full)
        case .video:
            guard options.video else { throw VipsError(.unsupported, "a video (--video shows videos by a frame)") }
            return try VideoPictures.header(descriptor: descriptor, maxPixels: maxPixels, maxBuffer: maxBuffer)
        case .image, .unknown:
            return try ImageFile.header(descriptor: descriptor, maxPixels: maxPixels, maxBuffer: maxBuffer)
        }
    }

    /// The picture as one tile of exactly `width` x `height` 8-bit sRGB
    /// pixels (cover, then `crop`), upright, alpha flattened onto
    /// `background`. `header` is the one `header(descriptor:)` gave: it
    /// says which library reads the file and what it found there.
    /// `colourManaged` false: an image's embedded profile is not applied
    /// (`ImageFile.tile`).
    public static func tile(descriptor: Int32, width: Int, height: Int, crop: CropMode = .centre, background: RGB,
                            header: ImageHeader, maxBuffer: Int = StructureCheck.bufferLimit,
                            colourManaged: Bool = true) throws -> MediaTile {
        var tile: MediaTile
        switch header.media {
        case .raw?:
            tile = try RawPictures.tile(descriptor: descriptor, width: width, height: height, crop: crop,
                                        background: background, header: header, maxBuffer: maxBuffer)
        case .video?:
            tile = try VideoPictures.tile(descriptor: descriptor, width: width, height: height, crop: crop,
                                          background: background, header: header, maxBuffer: maxBuffer)
        case nil where crop == .faces:
            let (pixels, focus) = try ImageFile.faceTile(descriptor: descriptor, width: width, height: height,
                                                         background: background, header: header, maxBuffer: maxBuffer)
            return MediaTile(pixels: pixels, focus: focus)
        case nil:
            let pixels = try ImageFile.tile(descriptor: descriptor, width: width, height: height, crop: crop,
                                            background: background, header: header, maxBuffer: maxBuffer,
                                            colourManaged: colourManaged)
            tile = MediaTile(pixels: pixels)
        }
        // RAW photos' and videos' face regions are not read: `faces` is `attention` for them.
        tile.focus = TileFocus(focus: crop == .faces ? CropMode.attention.rawValue : crop.rawValue)
        return tile
    }
}

/// What the run asks of RAW photos and videos.
public struct MediaOptions: Sendable, Equatable {
    /// `--raw`: RAW photos from their previews (default), always from their
    /// raw data, or left out.
    public var raw: RawMode = .preview
    /// `--video`: videos are shown by a poster frame; without it they are
    /// not considered (`.unsupported`).
    public var video = false

    public init(raw: RawMode = .preview, video: Bool = false) {
        self.raw = raw
        self.video = video
    }
}

/// `--raw preview|full|skip`.
public enum RawMode: String, Sendable, CaseIterable {
    case preview, full, skip
}

/// One decoded tile, and where its pixels came from.
public struct MediaTile: Sendable {
    public let pixels: PixelBuffer
    /// A RAW photo's: "preview" (its embedded JPEG) or "raw" (its raw data,
    /// demosaiced); nil for images and videos.
    public var source: String? = nil
    /// A video's: the time of the frame shown, in seconds.
    public var frameTime: Double? = nil
    /// What decided its crop (and why its XMP was not used, if it was not).
    public var focus = TileFocus(focus: CropMode.centre.rawValue)

    public init(pixels: PixelBuffer, source: String? = nil, frameTime: Double? = nil,
                focus: TileFocus = TileFocus(focus: CropMode.centre.rawValue)) {
        self.pixels = pixels
        self.source = source
        self.frameTime = frameTime
        self.focus = focus
    }
}
