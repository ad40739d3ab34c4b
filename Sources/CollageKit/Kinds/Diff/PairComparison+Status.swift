import Vips

extension PairComparison {
    /// What a pair both of whose sides were read is: `changed` when more
    /// than the tolerance really changed (one by one, or as a region whose
    /// colour moved); else `resized` when the sizes
    /// differ, `shifted` when a band moved, `noise` when pixels differ
    /// that anti-aliasing or a neighbour explains; else `unchanged`.
    static func status(of difference: Difference, tolerance: Tolerance) -> PairStatus {
        if tolerance.exceeded(by: difference.pixels, of: difference.total) { return .changed }
        if !difference.sameSize { return .resized }
        if !difference.shifts.isEmpty { return .shifted }
        return difference.noise > 0 ? .noise : .unchanged
    }

    /// What a cell shows of a pair: the real change; for a shift, 60 rows
    /// either side of where its first band now starts; the noise.
    static func region(_ status: PairStatus, _ difference: Difference) -> PixelRect? {
        switch status {
        case .changed: return difference.changeBox
        case .shifted:
            guard let band = difference.shifts.first else { return nil }
            let top = max(0, band.y + band.dy - 60)
            return PixelRect(x: 0, y: top, width: difference.width, height: min(difference.height - top, 120))
        case .noise: return difference.differingBox
        default: return nil
        }
    }
}
