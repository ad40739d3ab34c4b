import Vips

extension SheetComposer {
    /// Each caption centred in its band under its image, cut with "…" to
    /// its cell's width and never drawn outside the band; the title centred
    /// across the top. Ink contrasts with the background.
    func draw(labels: [String]?, frames: [Frame], title: String?, on pixels: PixelBuffer) throws {
        let ink = Captions.ink(on: background)
        for (label, frame) in zip(labels ?? [], frames) {
            guard let band = frame.caption else { continue }
            try draw(label, in: band, size: captions.size(forBand: band.height), ink: ink, on: pixels)
        }
        let titleBand = captions.titleBand(canvasHeight: canvas.height)
        if let title, titleBand > 0 {
            try draw(title, in: TileRect(x: 0, y: 0, width: canvas.width, height: titleBand),
                     size: captions.titleSize(canvasHeight: canvas.height), ink: ink, on: pixels)
        }
    }

    private func draw(_ text: String, in band: TileRect, size: Int, ink: RGB, on pixels: PixelBuffer) throws {
        let margin = max(2, size / 4)
        guard let rendered = try TextRenderer.line(text, font: captions.fontDescription, pixelSize: size,
                                                   maxWidth: band.width - 2 * margin) else { return }
        pixels.draw(rendered, colour: ink, x: band.x + (band.width - rendered.width) / 2,
                    y: band.y + (band.height - rendered.height) / 2,
                    clip: (band.x, band.y, band.width, band.height))
    }
}
