/// Where a tile's cover crop goes so that it keeps the faces: the window
/// holds every face when their extent fits in it, else it is centred on
/// the largest face; always inside the image.
public enum FaceWindow {
    /// `region` (stored, normalised) in the upright image that EXIF
    /// `orientation` (1-8) makes of it, still normalised.
    public static func upright(_ region: FaceRegion, orientation: Int) -> FaceRegion {
        // Where the stored point (x, y) lands upright, for each orientation.
        func map(_ x: Double, _ y: Double) -> (Double, Double) {
            switch orientation {
            case 2: return (1 - x, y)
            case 3: return (1 - x, 1 - y)
            case 4: return (x, 1 - y)
            case 5: return (y, x)
            case 6: return (1 - y, x)
            case 7: return (1 - y, 1 - x)
            case 8: return (y, 1 - x)
            default: return (x, y)
            }
        }
        let (ax, ay) = map(region.left, region.top), (bx, by) = map(region.right, region.bottom)
        return FaceRegion(left: min(ax, bx), top: min(ay, by), right: max(ax, bx), bottom: max(ay, by))
    }

    /// The top left corner, in pixels, of the `tileWidth` x `tileHeight`
    /// window in the upright image scaled to cover the tile
    /// (`coverWidth` x `coverHeight`), for the upright face `regions`
    /// (not empty). The window spans the whole of one side; it moves
    /// along the other.
    public static func origin(of regions: [FaceRegion], coverWidth: Int, coverHeight: Int,
                              tileWidth: Int, tileHeight: Int) -> (x: Int, y: Int) {
        func place(_ spans: [(Double, Double)], window: Int, across: Int) -> Int {
            guard across > window, !spans.isEmpty else { return 0 }
            let size = Double(window) / Double(across)
            let low = spans.map(\.0).min()!, high = spans.map(\.1).max()!
            let start: Double
            if high - low <= size {
                start = min(max((low + high) / 2 - size / 2, max(0, high - size)), min(low, 1 - size))
            } else {
                let largest = regions.indices.max { regions[$0].width * regions[$0].height < regions[$1].width * regions[$1].height }!
                let centre = (spans[largest].0 + spans[largest].1) / 2
                start = min(max(centre - size / 2, 0), 1 - size)
            }
            return min(max(0, Int((start * Double(across)).rounded())), across - window)
        }
        return (place(regions.map { ($0.left, $0.right) }, window: tileWidth, across: coverWidth),
                place(regions.map { ($0.top, $0.bottom) }, window: tileHeight, across: coverHeight))
    }
}
