import Vips

/// A photo's small look in grey (Rec. 601 luma, 0-255), and what of its
/// colour the blank rule needs: what the pick's fingerprint and scores are
/// taken from. Made from the small decode and let go once they are taken.
struct GreyLook: Sendable {
    let width: Int
    let height: Int
    /// Row-major grey levels.
    let grey: [Float]
    /// Every band is flat: the `--flag blank` rule (`FlagKind.flatDeviation`).
    let flat: Bool

    init(width: Int, height: Int, grey: [Float], flat: Bool) {
        precondition(width > 0 && height > 0 && grey.count == width * height)
        (self.width, self.height, self.grey, self.flat) = (width, height, grey, flat)
    }

    /// The grey of 8-bit pixels of 1 to 4 bands (grey, grey and alpha, RGB, RGBA).
    init(_ pixels: PixelBuffer) {
        let width = pixels.width, height = pixels.height, bands = pixels.bands
        let colours = bands >= 3 ? 3 : 1
        var grey = [Float](repeating: 0, count: width * height)
        // Sums of whole levels, exact; the grey written through its buffer, not a captured array checked at each write.
        var sums = (UInt64(0), UInt64(0), UInt64(0)), squares = (UInt64(0), UInt64(0), UInt64(0))
        pixels.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            grey.withUnsafeMutableBufferPointer { grey in
                for index in 0..<(width * height) {
                    let offset = index * bands
                    if colours == 3 {
                        let r = bytes[offset], g = bytes[offset + 1], b = bytes[offset + 2]
                        grey[index] = 0.299 * Float(r) + 0.587 * Float(g) + 0.114 * Float(b)
                        sums.0 &+= UInt64(r); sums.1 &+= UInt64(g); sums.2 &+= UInt64(b)
                        squares.0 &+= UInt64(r) * UInt64(r); squares.1 &+= UInt64(g) * UInt64(g)
                        squares.2 &+= UInt64(b) * UInt64(b)
                    } else {
                        let v = bytes[offset]
                        grey[index] = Float(v)
                        sums.0 &+= UInt64(v); squares.0 &+= UInt64(v) * UInt64(v)
                    }
                }
            }
        }
        let bandSums = [sums.0, sums.1, sums.2], bandSquares = [squares.0, squares.1, squares.2]
        let total = Double(width * height)
        let flat = (0..<colours).allSatisfy { band in
            let mean = Double(bandSums[band]) / total
            return max(0, Double(bandSquares[band]) / total - mean * mean) < FlagKind.flatDeviation * FlagKind.flatDeviation
        }
        self.init(width: width, height: height, grey: grey, flat: flat)
    }

    /// The look at half its size, each pixel the mean of a 2x2 box (nil below 2 pixels a side).
    func halved() -> GreyLook? {
        let half = (width: width / 2, height: height / 2)
        guard half.width > 0, half.height > 0 else { return nil }
        var grey = [Float](repeating: 0, count: half.width * half.height)
        for y in 0..<half.height {
            for x in 0..<half.width {
                let top = 2 * y * width + 2 * x, bottom = top + width
                grey[y * half.width + x] = (self.grey[top] + self.grey[top + 1] + self.grey[bottom] + self.grey[bottom + 1]) / 4
            }
        }
        return GreyLook(width: half.width, height: half.height, grey: grey, flat: flat)
    }

    /// The part of the look from (x, y), `width` x `height`.
    func cropped(x: Int, y: Int, width: Int, height: Int) -> GreyLook {
        var grey = [Float](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width { grey[row * width + column] = self.grey[(y + row) * self.width + x + column] }
        }
        return GreyLook(width: width, height: height, grey: grey, flat: flat)
    }

    /// The grey level at (x, y), clamped to the edges.
    @inline(__always) func at(_ x: Int, _ y: Int) -> Float {
        grey[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)]
    }
}
