import Vips

/// One cell of a `--diff` sheet. A pair with a region (`ComparedPair.region`:
/// its real change, the start of a moved band, or its noise) shows that
/// region with some context at up to 1:1, baseline | current | difference,
/// and the whole page's difference picture small beside it with the region
/// outlined; only a region too large for its panel is scaled down. Other
/// pairs show the whole pictures, a third each. An added pair shows its
/// current picture with an "added" mark where the baseline would be (a
/// removed one, the reverse); its difference third is all marked.
struct DiffCell: Sendable {
    let comparison: PairComparison
    let background: RGB
    let font: String

    /// The panels' widths at the pair's own scale, and their height.
    static func panels(_ pair: ComparedPair) -> (widths: [Int], height: Int) {
        guard let crop = crop(pair) else {
            return (Array(repeating: pair.shape.width, count: 3), pair.shape.height)
        }
        let page = max(1, crop.height * pair.shape.width / max(1, pair.shape.height))
        return ([crop.width, crop.width, crop.width, min(crop.width, max(crop.width / 3, page))], crop.height)
    }

    /// The region with its context, within the page: a quarter of its size
    /// on each side (16 to 64 pixels), at least 48 pixels each way.
    static func crop(_ pair: ComparedPair) -> PixelRect? {
        guard let region = pair.region else { return nil }
        let margin = min(64, max(16, max(region.width, region.height) / 4))
        let (pageWidth, pageHeight) = (pair.shape.width, pair.shape.height)
        func span(_ start: Int, _ length: Int, _ limit: Int) -> (Int, Int) {
            let wanted = max(48, length + 2 * margin)
            let from = max(0, min(start + length / 2 - wanted / 2, limit - wanted))
            return (from, min(wanted, limit - from))
        }
        let (x, width) = span(region.x, region.width, pageWidth), (y, height) = span(region.y, region.height, pageHeight)
        return PixelRect(x: x, y: y, width: max(1, width), height: max(1, height))
    }

    /// The shape laid out for a pair: its panels and the gaps between them.
    static func shape(_ pair: ComparedPair) -> ImageShape {
        let (widths, height) = panels(pair), total = widths.reduce(0, +)
        return ImageShape(width: total + (widths.count - 1) * gap(total), height: height)
    }

    static func gap(_ width: Int) -> Int { max(2, width / 100) }

    static let outline = RGB(red: 160, green: 160, blue: 160)
    static let marker = RGB(red: 230, green: 120, blue: 0)

    /// Each panel's x and width in a cell `width` wide.
    static func columns(_ pair: ComparedPair, width: Int) -> [(x: Int, width: Int)] {
        let widths = panels(pair).widths, total = max(1, widths.reduce(0, +))
        let gap = gap(width), room = max(widths.count, width - (widths.count - 1) * gap)
        var x = 0
        return widths.map { panel in
            let shown = max(1, panel * room / total)
            defer { x += shown + gap }
            return (x, shown)
        }
    }

    /// A cell's rectangle on the sheet cut where its baseline panel ends:
    /// the baseline's, and the rest's.
    static func split(_ rect: TileRect, _ pair: ComparedPair) -> (baseline: TileRect, current: TileRect) {
        let first = columns(pair, width: rect.width)[0], rest = first.width + gap(rect.width)
        return (TileRect(x: rect.x, y: rect.y, width: first.width, height: rect.height),
                TileRect(x: rect.x + rest, y: rect.y, width: max(1, rect.width - rest), height: rect.height))
    }

    /// The cell's pixels, exactly `width` x `height`: from what comparing
    /// kept (`KeptCell`: the panels made for a cell at least this large,
    /// while both pictures were held), else the pair read again (the file
    /// of a side that cannot be read now is the failure). Not the whole
    /// pictures kept, for memory: every pair is compared before the first
    /// sheet (the most changed go first), and the two full-size pictures of
    /// each changed pair kept until its cell would all be held at once (30
    /// changed pairs of 1920x1080: 360 MiB, where the whole run peaks at 85).
    func render(_ pair: ComparedPair, width: Int, height: Int) -> Result<PixelBuffer, DecodeFailure> {
        let columns = Self.columns(pair, width: width), innerHeight = max(1, height - 2)
        var cell = PixelBuffer(width: width, height: height, fill: background)
        do {
            let inner = columns.map { max(1, $0.width - 2) }  // inside the outline
            let kept = comparison.kept.take(pair.relative)
            let panels = try kept.flatMap { $0.draws(width: width, height: height) ? $0 : nil }
                .map { try keptPanels(pair, $0, inner, innerHeight) }
                ?? readPanels(pair, kept.flatMap { $0.panels.isEmpty ? $0.difference : nil }, inner, innerHeight)
            for (panel, column) in zip(panels, columns) {
                // Centred in its column, outlined so that a white screenshot shows on a white sheet.
                let x = column.x + (column.width - panel.width) / 2, y = (height - panel.height) / 2
                cell.place(PixelBuffer(width: panel.width + 2, height: panel.height + 2, fill: Self.outline), x: x - 1, y: y - 1)
                cell.place(panel, x: x, y: y)
            }
            return .success(cell)
        } catch let failure as DecodeFailure {
            return .failure(failure)
        } catch {
            return .failure(DecodeFailure(path: pair.path, message: String(describing: error)))
        }
    }

    /// The panels of the pair read again (`difference`: what comparing
    /// kept, if anything).
    private func readPanels(_ pair: ComparedPair, _ difference: Difference?, _ inner: [Int],
                            _ innerHeight: Int) throws -> [PixelBuffer] {
        func side(_ path: PathName, present: Bool) throws -> FullPicture? {
            guard present else { return nil }
            switch comparison.probe.check(path) {
            case .success(let image):
                return try comparison.decode(image, onDisc: comparison.keptOnDisc(pixels: 2 * pair.shape.width
                                                                                    * pair.shape.height)).get()
            case .failure(.failed(let message)), .failure(.rejected(_, let message)):
                throw DecodeFailure(path: path, message: message)
            }
        }
        let before = try side(pair.baseline, present: pair.status != .added)
        let after = try side(pair.path, present: pair.status != .removed)
        if let before, let after {
            let difference = try difference
                ?? Difference.compare(before, after, options: comparison.settings.applying(to: pair.relative).difference)
            if let crop = Self.crop(pair) {
                return try regionPanels(pair, crop, before, after, difference, inner, innerHeight)
            }
            return [try before.fitted(width: inner[0], height: innerHeight),
                    try after.fitted(width: inner[1], height: innerHeight),
                    try difference.picture(of: after, width: inner[2], height: innerHeight)]
        }
        let shown = try (before ?? after)!.fitted(width: inner[0], height: innerHeight)
        let mark = try self.mark(pair.status.rawValue, width: shown.width, height: shown.height)
        let all = try self.mark("all " + pair.status.rawValue, width: shown.width, height: shown.height)
        return before == nil ? [mark, shown, all] : [shown, mark, all]
    }

    /// The region of each picture (the baseline's where the region's rows
    /// were before they moved), and the whole page's difference small with
    /// the region outlined.
    private func regionPanels(_ pair: ComparedPair, _ crop: PixelRect, _ before: FullPicture, _ after: FullPicture,
                              _ difference: Difference, _ inner: [Int], _ height: Int) throws -> [PixelBuffer] {
        let page = try difference.picture(of: after, width: inner[3], height: height)
        return [try before.fitted(region: Self.earlier(pair, crop), width: inner[0], height: height),
                try after.fitted(region: crop, width: inner[1], height: height),
                try difference.picture(of: after, region: crop, width: inner[2], height: height),
                Self.outlined(page, crop, pair)]
    }

    /// Where the region's rows were in the baseline, before they moved.
    static func earlier(_ pair: ComparedPair, _ crop: PixelRect) -> PixelRect {
        let band = pair.shifts.first { (($0.y + $0.dy)..<($0.y + $0.dy + $0.height)).contains(crop.y) }
        return PixelRect(x: crop.x - (band?.dx ?? 0), y: crop.y - (band?.dy ?? 0), width: crop.width,
                         height: crop.height)
    }

    /// The small page with the region outlined.
    static func outlined(_ small: PixelBuffer, _ crop: PixelRect, _ pair: ComparedPair) -> PixelBuffer {
        var page = small
        let scale = Double(page.width) / Double(max(1, pair.shape.width))
        let (x0, y0) = (Int(Double(crop.x) * scale), Int(Double(crop.y) * scale))
        let (x1, y1) = (min(page.width - 1, Int(Double(crop.x + crop.width) * scale)),
                        min(page.height - 1, Int(Double(crop.y + crop.height) * scale)))
        for (x, y, w, h) in [(x0, y0, x1 - x0 + 1, 1), (x0, y1, x1 - x0 + 1, 1), (x0, y0, 1, y1 - y0 + 1),
                             (x1, y0, 1, y1 - y0 + 1)] where w > 0 && h > 0 {
            page.place(PixelBuffer(width: w, height: h, fill: Self.marker), x: x, y: y)
        }
        return page
    }

    /// A pale red panel with `word` across its middle.
    private func mark(_ word: String, width: Int, height: Int) throws -> PixelBuffer {
        var panel = PixelBuffer(width: width, height: height, fill: RGB(red: 255, green: 214, blue: 214))
        let size = max(8, min(height / 5, width / max(4, word.count)))
        if let text = try TextRenderer.line(word, font: font, pixelSize: size, maxWidth: width - 4,
                                            colour: RGB(red: 200, green: 0, blue: 0)) {
            panel.draw(text, x: (width - text.width) / 2, y: (height - text.height) / 2, clip: (0, 0, width, height))
        }
        return panel
    }
}
