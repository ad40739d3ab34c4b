import Vips

/// One cell of a `--diff` sheet: the baseline, the current picture and the
/// difference picture side by side, each fitted into a third of the cell's
/// image. An added pair shows its current picture with an "added" mark
/// where the baseline would be (a removed one, the reverse); its
/// difference third is all marked.
struct DiffCell: Sendable {
    let comparison: PairComparison
    let background: RGB
    let font: String

    /// The shape laid out for a pair: three pictures and two gaps wide.
    static func shape(_ pair: ComparedPair) -> ImageShape {
        ImageShape(width: pair.shape.width * 3 + 2 * gap(pair.shape.width * 3), height: pair.shape.height)
    }

    static func gap(_ width: Int) -> Int { max(2, width / 100) }

    static let outline = RGB(red: 160, green: 160, blue: 160)

    /// A cell's rectangle on the sheet cut where its baseline third ends:
    /// the baseline's, and the current and difference thirds'.
    static func split(_ rect: TileRect) -> (baseline: TileRect, current: TileRect) {
        let gap = gap(rect.width), third = max(1, (rect.width - 2 * gap) / 3)
        return (TileRect(x: rect.x, y: rect.y, width: third, height: rect.height),
                TileRect(x: rect.x + third + gap, y: rect.y, width: rect.width - third - gap, height: rect.height))
    }

    /// The cell's pixels, exactly `width` x `height`; the pair is read again
    /// (the file of a side that cannot be read now is the failure). Read
    /// again, not kept from its comparison, for memory: every pair is
    /// compared before the first sheet (the most changed go first), and the
    /// two full-size pictures of each changed pair kept until its cell
    /// would all be held at once (30 changed pairs of 1920x1080: 360 MiB,
    /// where the whole run peaks at 85). What comparing found is kept
    /// (`KeptDifferences`), so the pair is not compared again.
    func render(_ pair: ComparedPair, width: Int, height: Int) -> Result<PixelBuffer, DecodeFailure> {
        let gap = Self.gap(width)
        let third = max(3, (width - 2 * gap) / 3)
        let (inner, innerHeight) = (third - 2, max(1, height - 2))  // inside the outline
        var cell = PixelBuffer(width: width, height: height, fill: background)
        func side(_ path: PathName, present: Bool) -> Result<FullPicture?, DecodeFailure> {
            guard present else { return .success(nil) }
            switch comparison.probe.check(path) {
            case .success(let image): return comparison.decode(image).map { $0 }
            case .failure(.failed(let message)), .failure(.rejected(_, let message)):
                return .failure(DecodeFailure(path: path, message: message))
            }
        }
        do {
            let before = try side(pair.baseline, present: pair.status != .added).get()
            let after = try side(pair.path, present: pair.status != .removed).get()
            let panels: [PixelBuffer]
            if let before, let after {
                let difference = try comparison.kept.take(pair.relative)
                    ?? Difference.compare(before, after, options: comparison.settings.difference)
                panels = [try before.fitted(width: inner, height: innerHeight),
                          try after.fitted(width: inner, height: innerHeight),
                          try difference.picture(of: after, width: inner, height: innerHeight)]
            } else {
                let shown = try (before ?? after)!.fitted(width: inner, height: innerHeight)
                let mark = try self.mark(pair.status.rawValue, width: shown.width, height: shown.height)
                let all = try self.mark("all " + pair.status.rawValue, width: shown.width, height: shown.height)
                panels = before == nil ? [mark, shown, all] : [shown, mark, all]
            }
            for (index, panel) in panels.enumerated() {
                // Centred in its third, outlined so that a white screenshot shows on a white sheet.
                let x = index * (third + gap) + (third - panel.width) / 2, y = (height - panel.height) / 2
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
