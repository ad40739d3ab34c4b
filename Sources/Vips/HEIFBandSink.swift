internal import CHEVC
import FileFacts
import Glibc
import ToneMap

/// What `ImageFile.tiledHEIF` makes of the small rows as each row of tiles
/// finishes them: 8-bit RGB, in a buffer the image will own, a band of 64
/// rows at a time (YCbCr to R'G'B' as libheif converts, then the tone
/// mapper for HDR and for wide primaries without an ICC profile; the rest
/// shown as libheif gives it, its profile attached). With an alpha plane,
/// RGBA: the alpha scaled to 8 bits, and premultiplied colours divided by
/// it first (as libheif reports them premultiplied), so that the tile is
/// flattened onto the sheet's background as any picture with alpha is.
final class BandSink {
    static let bandRows = 64
    let width: Int
    let height: Int
    let layout: HEIFLayout
    /// 4 with an alpha plane, else 3.
    let bands: Int
    /// The profile to attach (none once tone-mapped to sRGB).
    private(set) var icc: [UInt8]
    private var pixels: UnsafeMutableRawPointer?
    private var band: [UInt16]
    private var source: ToneMap.Source?

    init(_ layout: HEIFLayout, width: Int, height: Int) throws {
        let bands = layout.alpha == nil ? 3 : 4
        guard width > 0, height > 0, let pixels = malloc(width * height * bands) else {
            throw VipsError(.load, "cannot decode heif: a picture of \(width)x\(height)")
        }
        self.layout = layout
        self.width = width
        self.height = height
        self.bands = bands
        self.pixels = pixels
        self.icc = layout.icc
        self.band = [UInt16](repeating: 0, count: width * Self.bandRows * 3)
    }

    deinit { free(pixels) }

    /// The pixels, for an image to own (and free).
    func handOver() -> UnsafeMutableRawPointer? {
        defer { pixels = nil }
        return pixels
    }

    /// Converts `rows` into the picture; false for rows it cannot take.
    func take(_ rows: chevc_band) -> Bool {
        guard let pixels, rows.width == width, rows.first_row >= 0, rows.first_row + rows.rows <= height else { return false }
        let source = self.source ?? decide(rows)
        let matrix = layout.colour?.matrix ?? Int(rows.matrix)
        let fullRange = layout.colour?.fullRange ?? (rows.full_range != 0)
        for start in stride(from: 0, to: Int(rows.rows), by: Self.bandRows) {
            var part = rows
            part.rows = Int32(min(Self.bandRows, Int(rows.rows) - start))
            let offset = start * Int(rows.stride)
            part.planes = (rows.planes.0.map { $0 + offset }, rows.planes.1.map { $0 + offset }, rows.planes.2.map { $0 + offset },
                           rows.planes.3.map { $0 + offset })
            let mapped: [UInt8]? = band.withUnsafeMutableBufferPointer { buffer in
                guard chevc_ycbcr_to_rgb16(&part, Int32(matrix), fullRange ? 1 : 0, buffer.baseAddress) == 0 else { return nil }
                if layout.alpha?.premultiplied == true, let alpha = part.planes.3 {
                    Self.unpremultiply(buffer, alpha: alpha, rows: part, colourBits: Int(rows.bits))
                }
                return ToneMap.sRGB8([UnsafeBufferPointer(buffer)], layout: .interleaved(channels: 3), width: width,
                                     height: Int(part.rows), rowStride: width * 3, bits: Int(rows.bits), source: source)
            }
            guard let mapped else { return false }
            let at = (Int(rows.first_row) + start) * width * bands
            if bands == 4, let alpha = part.planes.3 {
                Self.interleave(mapped, alpha: alpha, rows: part, into: (pixels + at).assumingMemoryBound(to: UInt8.self))
            } else {
                mapped.withUnsafeBytes { (pixels + at).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
        }
        return true
    }

    /// R'G'B' samples divided by their alpha (`rows`' plane 3, of its own
    /// depth), clipped to the samples' range; 0 where the alpha is.
    private static func unpremultiply(_ rgb: UnsafeMutableBufferPointer<UInt16>, alpha: UnsafePointer<UInt16>,
                                      rows: chevc_band, colourBits: Int) {
        let opaque = UInt32(1 << Int(rows.alpha_bits)) - 1, top = UInt32(1 << colourBits) - 1
        for y in 0..<Int(rows.rows) {
            for x in 0..<Int(rows.width) {
                let a = UInt32(alpha[y * Int(rows.stride) + x]), o = (y * Int(rows.width) + x) * 3
                for c in 0..<3 {
                    rgb[o + c] = a == 0 ? 0 : UInt16(min(top, (UInt32(rgb[o + c]) * opaque + a / 2) / a))
                }
            }
        }
    }

    /// 8-bit RGB and the alpha (`rows`' plane 3) scaled to 8 bits, as RGBA at `to`.
    private static func interleave(_ rgb: [UInt8], alpha: UnsafePointer<UInt16>, rows: chevc_band,
                                   into to: UnsafeMutablePointer<UInt8>) {
        let opaque = UInt32(1 << Int(rows.alpha_bits)) - 1
        for y in 0..<Int(rows.rows) {
            for x in 0..<Int(rows.width) {
                let o = y * Int(rows.width) + x
                to[o * 4] = rgb[o * 3]
                to[o * 4 + 1] = rgb[o * 3 + 1]
                to[o * 4 + 2] = rgb[o * 3 + 2]
                to[o * 4 + 3] = UInt8((UInt32(alpha[y * Int(rows.stride) + x]) * 255 + opaque / 2) / opaque)
            }
        }
    }

    /// The picture's transfer and primaries (its colour box, else its
    /// stream's), and whether they are mapped: HDR always (its profile,
    /// if any, dropped), wide primaries when no profile says what they are.
    private func decide(_ rows: chevc_band) -> ToneMap.Source {
        let colour = layout.imageColour
        var source = ToneMap.Source(transfer: colour?.transfer ?? Int(rows.transfer),
                                    primaries: colour?.primaries ?? Int(rows.primaries),
                                    masteringPeak: layout.masteringPeak, maxContentLight: layout.maxContentLight)
        if source.isHDR || (icc.isEmpty && source.needsMapping) {
            icc = []
        } else {
            source = ToneMap.Source(transfer: 1, primaries: 1)  // shown as it is
        }
        self.source = source
        return source
    }
}
