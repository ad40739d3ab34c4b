internal import CFFmpeg
import ToneMap

/// A frame's colour as its stream says it, by ITU-T H.273 code points (as
/// FFmpeg numbers them), what is unsaid filled in as players do: the
/// matrix and range that turn its samples into R'G'B', and the primaries,
/// transfer and light levels that say what R'G'B' means.
public struct VideoColour: Sendable, Equatable {
    /// The matrix: 1 BT.709, 5 or 6 BT.601, 9 BT.2020 (unsaid: BT.709 from
    /// 720 rows up, else BT.601).
    public let matrix: Int
    /// Full-range samples (0-255) rather than limited (16-235).
    public let fullRange: Bool
    /// How the R'G'B' is shown: transfer, primaries, light levels, for the
    /// tone mapper.
    public let tone: ToneMap.Source

    init(_ handle: OpaquePointer) {
        var raw = cav_colour()
        cav_kept_colour(handle, &raw)
        matrix = Int(raw.matrix)
        fullRange = raw.full_range != 0
        tone = ToneMap.Source(transfer: Int(raw.transfer), primaries: Int(raw.primaries),
                              masteringPeak: raw.mastering_peak.isFinite ? max(0, raw.mastering_peak) : 0,
                              maxContentLight: raw.max_content_light.isFinite ? max(0, raw.max_content_light) : 0)
    }
}
