import Vips

extension PixelBuffer {
    /// The mean absolute difference of the samples of two pictures of one
    /// size, on 0-255.
    public func meanDifference(from other: PixelBuffer) -> Double {
        var total = 0
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x: x, y: y), q = other.pixel(x: x, y: y)
                total += abs(Int(p.red) - Int(q.red)) + abs(Int(p.green) - Int(q.green)) + abs(Int(p.blue) - Int(q.blue))
            }
        }
        return Double(total) / Double(width * height * 3)
    }
}
