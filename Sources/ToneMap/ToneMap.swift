internal import CToneMap

/// The one tone mapper (CToneMap): HDR pictures (PQ, HLG) and wide-gamut
/// ones to 8-bit sRGB, for HEIF photos and video frames alike. Pure
/// functions over the caller's samples.
public enum ToneMap {
    /// What a picture's samples are: transfer and primaries by their
    /// ITU-T H.273 code points (as a HEIF `nclx` box and FFmpeg number
    /// them), and the light levels its stream carries, in cd/m² (0: none).
    public struct Source: Sendable, Equatable {
        /// H.273 transfer characteristics: 1 BT.709, 13 sRGB, 16 PQ, 18 HLG, 8 linear.
        public var transfer: Int
        /// H.273 colour primaries: 1 BT.709, 9 BT.2020, 12 Display P3.
        public var primaries: Int
        /// The mastering display's peak (SMPTE ST 2086), 0 when unknown.
        public var masteringPeak: Double
        /// The content's brightest pixel (MaxCLL), 0 when unknown.
        public var maxContentLight: Double

        /// A source of these code points and light levels.
        public init(transfer: Int, primaries: Int, masteringPeak: Double = 0, maxContentLight: Double = 0) {
            self.transfer = transfer
            self.primaries = primaries
            self.masteringPeak = masteringPeak
            self.maxContentLight = maxContentLight
        }

        /// PQ or HLG: tone-mapped, not shown as it is.
        public var isHDR: Bool {
            var c = raw
            return ctm_is_hdr(&c) != 0
        }

        /// Whether the samples must go through the mapper at all: HDR, or
        /// primaries wider than sRGB's.
        public var needsMapping: Bool { isHDR || primaries == 9 || primaries == 12 }

        /// The peak the mapper brings down to SDR white, in cd/m².
        public var peak: Double {
            var c = raw
            return ctm_source_peak(&c)
        }

        var raw: ctm_source {
            ctm_source(transfer: Int32(clamping: transfer), primaries: Int32(clamping: primaries),
                       mastering_peak: masteringPeak, max_content_light: maxContentLight)
        }
    }

    /// How the samples lie: interleaved (R'G'B' together, `channels` 3 or
    /// 4 a pixel) or planar (three planes), rows `rowStride` samples apart.
    public enum Layout: Sendable, Equatable {
        case interleaved(channels: Int)
        case planar
    }

    /// `width` x `height` pixels of full-range `bits`-bit R'G'B' samples
    /// (8 to 16) as 8-bit sRGB, 3 bytes a pixel, rows packed. Interleaved:
    /// `planes` holds one buffer; planar: three. Nil for a shape, depth or
    /// buffer it does not take.
    public static func sRGB8(_ planes: [UnsafeBufferPointer<UInt16>], layout: Layout, width: Int, height: Int,
                             rowStride: Int, bits: Int, source: Source) -> [UInt8]? {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max), (8...16).contains(bits),
              rowStride >= 0 else { return nil }
        let step: Int, pointers: [UnsafePointer<UInt16>?]
        switch layout {
        case .interleaved(let channels):
            guard (3...4).contains(channels), planes.count == 1, let base = planes[0].baseAddress,
                  rowStride >= width * channels, planes[0].count >= rowStride * (height - 1) + width * channels
            else { return nil }
            step = channels
            pointers = [base, base + 1, base + 2]
        case .planar:
            guard planes.count == 3, rowStride >= width,
                  planes.allSatisfy({ $0.baseAddress != nil && $0.count >= rowStride * (height - 1) + width })
            else { return nil }
            step = 1
            pointers = planes.map { $0.baseAddress }
        }
        var input = ctm_input(channel: (pointers[0], pointers[1], pointers[2]), pixel_step: step,
                              row_stride: rowStride, bits: Int32(bits))
        var out = [UInt8](repeating: 0, count: width * height * 3)
        var c = source.raw
        let status = out.withUnsafeMutableBufferPointer {
            ctm_to_srgb8(&c, &input, Int32(width), Int32(height), $0.baseAddress, width * 3)
        }
        return status == 0 ? out : nil
    }

    /// One pixel's linear light (cd/m² for PQ; HLG's display light after
    /// its OOTF) in the source's primaries, to linear BT.709 with 1 as SDR
    /// white: the EETF and the gamut mapping alone.
    public static func mapLinear(_ rgb: (Double, Double, Double), source: Source) -> (Double, Double, Double) {
        var c = source.raw
        let input = [rgb.0, rgb.1, rgb.2]
        var output = [0.0, 0, 0]
        output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { ctm_map_linear(&c, $0.baseAddress, out.baseAddress) }
        }
        return (output[0], output[1], output[2])
    }

    /// A code value (0-1) of `transfer` as light: cd/m² for PQ, scene
    /// light 0-1 for HLG, relative light 0-1 for SDR transfers.
    public static func linearise(_ encoded: Double, transfer: Int) -> Double {
        ctm_linearise(Int32(clamping: transfer), encoded)
    }

    /// Linear 0-1 as sRGB encodes it, 0-1.
    public static func sRGBEncode(_ linear: Double) -> Double { ctm_srgb_encode(linear) }
}
