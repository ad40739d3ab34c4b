/// The mark a video's tile carries: a white triangle pointing right on a
/// dark translucent disc, centred, its size following the tile's.
extension PixelBuffer {
    public mutating func drawPlayMark() {
        let (width, height, bands) = (width, height, bands)
        let radius = Double(max(6, min(48, min(width, height) / 7)))
        let centreX = Double(width) / 2, centreY = Double(height) / 2
        let left = max(0, Int(centreX - radius) - 1), right = min(width - 1, Int(centreX + radius) + 1)
        let top = max(0, Int(centreY - radius) - 1), bottom = min(height - 1, Int(centreY + radius) + 1)
        guard left <= right, top <= bottom else { return }
        // The triangle: its left side at -0.35 r, its tip at +0.5 r, 0.45 r high on either side.
        func inTriangle(_ x: Double, _ y: Double) -> Bool {
            let dx = (x - centreX) / radius, dy = abs(y - centreY) / radius
            return dx >= -0.35 && dx <= 0.5 && dy <= 0.45 * (0.5 - dx) / 0.85
        }
        withUnsafeMutablePixels { pixels in
            for y in top...bottom {
                for x in left...right {
                    // 4x4 samples a pixel: smooth edges.
                    var disc = 0, mark = 0
                    for sy in 0..<4 {
                        for sx in 0..<4 {
                            let px = Double(x) + (Double(sx) + 0.5) / 4, py = Double(y) + (Double(sy) + 0.5) / 4
                            let inside = (px - centreX) * (px - centreX) + (py - centreY) * (py - centreY) <= radius * radius
                            if inside { disc += 1 }
                            if inside && inTriangle(px, py) { mark += 1 }
                        }
                    }
                    guard disc > 0 else { continue }
                    let darken = 0.55 * Double(disc - mark) / 16, white = Double(mark) / 16
                    for band in 0..<3 {
                        let at = (y * width + x) * bands + band
                        let value = Double(pixels[at]) * (1 - darken - white) + 255 * white
                        pixels[at] = UInt8(max(0, min(255, value.rounded())))
                    }
                }
            }
        }
    }
}
