import Vips

extension SheetComposer {
    /// Each caption centred in its band under its image, cut with "…" to
    /// its cell's width and never drawn outside the band; the title centred
    /// across the top. Ink contrasts with the background.
    ///
    /// Returns a notice for each caption (and the title) that needed a
    /// character no installed font has, naming the font package to install.
    func draw(labels: [String]?, paths: [PathName], frames: [Frame], title: String?, sheet: Int,
              on pixels: inout PixelBuffer) throws -> [String] {
        let ink = Captions.ink(on: background)
        return try draw(labels: labels, paths: paths, frames: frames, title: title, sheet: sheet) { text, band, size in
            try draw(text, in: band, size: size, ink: ink, on: &pixels)
        }
    }

    /// The same, each line handed to `put` (its text, its band, its size in
    /// pixels), which returns the characters it drew as boxes.
    func draw(labels: [String]?, paths: [PathName], frames: [Frame], title: String?, sheet: Int,
              put: (String, TileRect, Int) throws -> [Unicode.Scalar]) throws -> [String] {
        var notices: [String] = []
        for ((label, frame), path) in zip(zip(labels ?? [], frames), paths) {
            guard let band = frame.caption else { continue }
            let missing = try put(label, band, captions.size(forBand: band.height))
            if !missing.isEmpty {
                notices.append("\(path): its caption has characters no installed font has, drawn as boxes: "
                               + FontPackages.advice(for: missing))
            }
        }
        let titleBand = captions.titleBand(canvasHeight: canvas.height)
        if let title, titleBand > 0 {
            var area = layout.options
            area.titleBand = titleBand
            let missing = try put(title, area.titleRect(canvas), captions.titleSize(canvasHeight: canvas.height))
            if !missing.isEmpty {
                notices.append("sheet \(sheet): its title has characters no installed font has, drawn as boxes: "
                               + FontPackages.advice(for: missing))
            }
        }
        return notices
    }

    /// Draws `text` centred in `band`; returns the characters it drew as boxes.
    private func draw(_ text: String, in band: TileRect, size: Int, ink: RGB, on pixels: inout PixelBuffer) throws
        -> [Unicode.Scalar] {
        let margin = max(2, size / 4)
        guard let rendered = try TextRenderer.line(text, font: captions.fontDescription, pixelSize: size,
                                                   maxWidth: band.width - 2 * margin, colour: ink) else { return [] }
        pixels.draw(rendered, x: band.x + (band.width - rendered.width) / 2,
                    y: band.y + (band.height - rendered.height) / 2,
                    clip: (band.x, band.y, band.width, band.height))
        return rendered.missing
    }
}
