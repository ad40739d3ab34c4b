import Glibc

/// A perceptual fingerprint: 64 bits from the lowest frequencies of a
/// photo's 32x32 grey (a DCT hash). Each bit says whether one of the 8x8
/// lowest frequencies (but the mean) is above their median, so a change of
/// exposure or contrast, a re-encode, a resize or a shift of a few percent
/// of the frame changes few bits; another scene changes about half.
enum Fingerprint {
    /// The side of the grey the DCT is taken of.
    static let side = 32

    /// The fingerprint of `look`.
    static func of(_ look: GreyLook) -> UInt64 {
        let small = boxResized(look)
        // Separable DCT-II, rows then columns, only the 8 lowest frequencies of each.
        var rows = [Double](repeating: 0, count: side * 8)
        for y in 0..<side {
            for u in 0..<8 {
                var sum = 0.0
                for x in 0..<side { sum += small[y * side + x] * cosines[u * side + x] }
                rows[y * 8 + u] = sum
            }
        }
        var coefficients = [Double](repeating: 0, count: 64)
        for v in 0..<8 {
            for u in 0..<8 {
                var sum = 0.0
                for y in 0..<side { sum += rows[y * 8 + u] * cosines[v * side + y] }
                coefficients[v * 8 + u] = sum
            }
        }
        // The mean (0, 0) says only how bright the photo is: left out of the median.
        let median = coefficients.dropFirst().sorted()[31]
        var bits: UInt64 = 0
        for index in 1..<64 where coefficients[index] > median { bits |= 1 << UInt64(index) }
        return bits
    }

    /// How many bits two fingerprints differ in (0 the same look, about 32 unrelated).
    static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// The 15 bits of the 4x4 lowest frequencies (but the mean): the
    /// frame's coarsest layout, which a moving subject or a pan hardly
    /// changes and another scene changes by about half.
    /// (Bit v * 8 + u is frequency (u, v): the low four bits of the low four bytes, but bit 0.)
    static let coarse: UInt64 = 0x0F0F_0F0E

    /// How many of the coarse bits two fingerprints differ in (of 15).
    static func coarseDistance(_ a: UInt64, _ b: UInt64) -> Int { ((a ^ b) & coarse).nonzeroBitCount }

    /// cos((2x + 1) u π / 64) for the 8 lowest u.
    private static let cosines: [Double] = (0..<(8 * side)).map { index in
        let u = Double(index / side), x = Double(index % side)
        return cos((2 * x + 1) * u * Double.pi / Double(2 * side))
    }

    /// `look` averaged over a 32x32 grid of boxes (each pixel in the box
    /// its centre falls in).
    static func boxResized(_ look: GreyLook) -> [Double] {
        var sums = [Double](repeating: 0, count: side * side), counts = [Double](repeating: 0, count: side * side)
        let columns = (0..<look.width).map { $0 * side / look.width }
        for y in 0..<look.height {
            let row = y * side / look.height
            for x in 0..<look.width {
                sums[row * side + columns[x]] += Double(look.grey[y * look.width + x])
                counts[row * side + columns[x]] += 1
            }
        }
        // A look smaller than 32 pixels on a side repeats its nearest box.
        return (0..<(side * side)).map { index in
            if counts[index] > 0 { return sums[index] / counts[index] }
            let y = (index / side) * look.height / side, x = (index % side) * look.width / side
            return Double(look.at(x, y))
        }
    }
}
