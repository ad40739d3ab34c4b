import Vips

extension DiffCell {
    /// What a cell `width` x `height` of `pair` is drawn from, made while
    /// comparing holds both pictures whole: each panel's picture at up to
    /// 1:1, no larger than its panel in that cell (a region's baseline,
    /// current and difference; or the whole baseline and current), and the
    /// current page shrunk to the size of its difference picture's panel.
    /// A cell of that size drawn from it has the pixels of one drawn from
    /// the files; a smaller one is shrunk from it.
    static func kept(_ pair: ComparedPair, _ before: FullPicture, _ after: FullPicture, _ difference: Difference,
                     width: Int, height: Int) throws -> KeptCell {
        let inner = columns(pair, width: width).map { max(1, $0.width - 2) }, innerHeight = max(1, height - 2)
        var cell = KeptCell(difference: difference.withoutMask, width: width, height: height)
        if let crop = crop(pair) {
            cell.panels = [try before.kept(region: earlier(pair, crop), width: inner[0], height: innerHeight),
                           try after.kept(region: crop, width: inner[1], height: innerHeight),
                           try difference.kept(of: after, region: crop, width: inner[2], height: innerHeight)]
            cell.page = try difference.page(of: after, width: inner[3], height: innerHeight)
        } else {
            cell.panels = [try before.kept(width: inner[0], height: innerHeight),
                           try after.kept(width: inner[1], height: innerHeight)]
            cell.page = try difference.page(of: after, width: inner[2], height: innerHeight)
        }
        return cell
    }

    /// The panels of a cell drawn from what comparing kept (`kept`).
    func keptPanels(_ pair: ComparedPair, _ kept: KeptCell, _ inner: [Int], _ height: Int) throws -> [PixelBuffer] {
        guard let page = kept.page else { throw DecodeFailure(path: pair.path, message: "nothing kept to draw") }
        let difference = kept.difference
        if let crop = Self.crop(pair), kept.panels.count == 3 {
            return [try kept.panels[0].fitted(width: inner[0], height: height),
                    try kept.panels[1].fitted(width: inner[1], height: height),
                    try kept.panels[2].fitted(width: inner[2], height: height),
                    Self.outlined(try difference.picture(of: page, width: inner[3], height: height), crop, pair)]
        }
        return [try kept.panels[0].fitted(width: inner[0], height: height),
                try kept.panels[1].fitted(width: inner[1], height: height),
                try difference.picture(of: page, width: inner[2], height: height)]
    }
}
