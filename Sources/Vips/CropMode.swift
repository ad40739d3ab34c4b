internal import CVipsShim

/// Which part of an image is kept when it is cropped to a tile's shape:
/// the centre, or what libvips' smart crop finds most interesting.
public enum CropMode: String, Sendable, CaseIterable {
    case centre
    /// libvips' attention: skin tones, saturated colour, edges.
    case attention
    /// libvips' entropy: the busiest region.
    case entropy

    var interesting: VipsInteresting {
        switch self {
        case .centre: VIPS_INTERESTING_CENTRE
        case .attention: VIPS_INTERESTING_ATTENTION
        case .entropy: VIPS_INTERESTING_ENTROPY
        }
    }
}
