extension PixelBuffer {
    /// Draws `text` (in the colours it was rendered in) with its line's
    /// top-left corner at (x, y), blended by the ink's coverage, clipped to
    /// `clip` and to the buffer.
    public mutating func draw(_ text: RenderedText, x: Int, y: Int, clip: (x: Int, y: Int, width: Int, height: Int)) {
        let (width, height, bands) = (width, height, bands)
        let inkY = y + text.inkTop
        let left = max(x, clip.x, 0), top = max(inkY, clip.y, 0)
        let right = min(x + text.width, clip.x + clip.width, width)
        let bottom = min(inkY + text.inkHeight, clip.y + clip.height, height)
        guard left < right, top < bottom, bands >= 3 else { return }
        withUnsafeMutablePixels { pixels in
            text.pixels.withUnsafeBufferPointer { ink in
                for row in top..<bottom {
                    let from = (row - inkY) * text.width - x
                    for column in left..<right {
                        let source = (from + column) * 4
                        let alpha = Int(ink[source + 3])
                        guard alpha > 0 else { continue }
                        let offset = (row * width + column) * bands
                        for band in 0..<3 {
                            let old = Int(pixels[offset + band])
                            pixels[offset + band] = UInt8((old * (255 - alpha) + Int(ink[source + band]) * alpha + 127) / 255)
                        }
                    }
                }
            }
        }
    }
}
