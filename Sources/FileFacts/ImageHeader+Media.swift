/// What the header of a RAW photo or a video says besides its size: what
/// the `Media` target read with LibRaw or FFmpeg, and what decoding it to a
/// tile of a given size holds.
public enum MediaFacts: Sendable, Equatable {
    case raw(RawFacts)
    case video(VideoFacts)
}

public struct RawFacts: Sendable, Equatable {
    /// Every embedded JPEG preview that can be used (LibRaw's and those the
    /// file's structure points to), smallest first; none with `--raw full`.
    public var previews: [EmbeddedJPEG] = []
    /// Why the raw data cannot give a picture, when that is known before
    /// decoding it (LibRaw cannot read the file; its data is cut short).
    public var rawProblem: String?
    /// The largest embedded JPEG preview, as stored (its frame header): 0 x 0
    /// when there is none that can be used, or with `--raw full`.
    public var previewWidth = 0
    public var previewHeight = 0
    /// Where its bytes are in the file (decoded in place, never read whole)
    /// and, for a progressive preview, its coefficients.
    public var previewOffset = 0
    public var previewBytes = 0
    public var previewBufferBytes = 0
    /// What unpacking the raw data holds (16 bits a sample), and whether
    /// LibRaw found raw data it can decode.
    public var rawBytes = 0
    public var hasRawData = false

    public init() {}
}

public struct VideoFacts: Sendable, Equatable {
    /// Seconds.
    public var duration: Double
    /// The decoder's frames while it runs (its reference frames), from the
    /// stream's coded size.
    public var decoderBytes: Int

    public init(duration: Double, decoderBytes: Int) {
        self.duration = duration
        self.decoderBytes = decoderBytes
    }
}

/// Where a RAW photo's tile comes from.
public enum RawSource: String, Sendable {
    /// The largest embedded JPEG preview, at least as large as the tile.
    case preview
    /// The raw data demosaiced at half size (one pixel a 2x2 block), when
    /// that still fills the tile.
    case half
    /// The raw data demosaiced at full size.
    case full
}

extension ImageHeader {
    /// Where a RAW photo's tile of `width` x `height` (displayed) comes
    /// from: the preview when it covers the tile without being enlarged,
    /// else the raw data at the smallest scale that covers it; nil when it
    /// has neither (or is not a RAW photo). `width`/`height` of the header
    /// are the full-size image a demosaic makes.
    public func rawSource(forTile tileWidth: Int, _ tileHeight: Int, preview: Bool = true) -> RawSource? {
        guard case .raw(let facts)? = media else { return nil }
        let quarter = orientation >= 5
        func covers(_ w: Int, _ h: Int) -> Bool {
            let (shownWidth, shownHeight) = quarter ? (h, w) : (w, h)
            return shownWidth >= tileWidth && shownHeight >= tileHeight
        }
        if preview, facts.previewWidth > 0, covers(facts.previewWidth, facts.previewHeight) { return .preview }
        guard facts.hasRawData else { return nil }
        return covers(width / 2, height / 2) ? .half : .full
    }

    /// What unpacking and demosaicing a RAW photo holds: the raw data,
    /// LibRaw's working image (4 samples of 16 bits a pixel), its 8-bit RGB
    /// output; at full size, AHD interpolation's tiles too (about 7 MiB).
    public func demosaicBytes(half: Bool) -> Int {
        guard case .raw(let facts)? = media else { return 0 }
        let pixels = half ? (width / 2) * (height / 2) : width * height
        return Self.workingSet + facts.rawBytes + pixels * (8 + 3) + (half ? 0 : 8 << 20)
    }

    /// A RAW photo's previews that cover a tile of `width` x `height`
    /// (displayed) without being enlarged, smallest first.
    public func previews(covering tileWidth: Int, _ tileHeight: Int) -> [EmbeddedJPEG] {
        guard case .raw(let facts)? = media else { return [] }
        let quarter = orientation >= 5
        return facts.previews.filter {
            let (shownWidth, shownHeight) = quarter ? ($0.height, $0.width) : ($0.width, $0.height)
            return shownWidth >= tileWidth && shownHeight >= tileHeight
        }
    }

    /// A video's length in seconds (nil for pictures).
    public var duration: Double? {
        if case .video(let facts)? = media { return facts.duration }
        return nil
    }
}
