internal import CVipsShim

/// Which part of an image is kept when it is cropped to a tile's shape:
/// the centre, what libvips' smart crop finds most interesting, or the
/// faces the photo's XMP marks.
public enum CropMode: String, Sendable, CaseIterable {
    case centre
    /// libvips' attention: skin tones, saturated colour, edges.
    case attention
    /// libvips' entropy: the busiest region.
    case entropy
    /// The faces of the photo's XMP face regions; as `attention` when it
    /// has none (and for RAW photos and videos).
    case faces

    var interesting: VipsInteresting {
        switch self {
        case .centre: VIPS_INTERESTING_CENTRE
        case .attention, .faces: VIPS_INTERESTING_ATTENTION
        case .entropy: VIPS_INTERESTING_ENTROPY
        }
    }
}
