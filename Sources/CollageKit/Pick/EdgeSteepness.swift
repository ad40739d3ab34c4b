/// How steep a look's sharpest edges are: what `--pick` tells a clearly
/// blurred photo by. At each edge (a step between neighbouring pixels, in
/// rows and in columns, larger than the steps beside it, where the levels
/// around it span at least `contrast`) the share of the edge's whole rise
/// taken in that one step: about 1 where the edge is a step, lower the
/// more pixels a blur spreads it over. The 99th percentile of the shares
/// is the look's steepness: the edges in focus, wherever in the frame.
///
/// A steepness alone does not tell a blur from a scene's own softness:
/// sharp photos span 0.56-1.0, and a blur of sigma 3 pixels over a
/// 1024-pixel photo (under a pixel of its 256-pixel look) gives 0.33-1.0.
/// So the look is also judged against itself at half its size, where the
/// same blur is half as wide: a sharp photo is about as steep there (its
/// steepness over the half's, `kept`, 0.81 and up where it is under 0.85),
/// a blurred one steeper (0.51-0.80 at sigma 3 and more), a soft scene
/// soft at both sizes.
///
/// Measured on 63 photos (Debian's wallpapers, OpenCV's sample photos and
/// samples/, each 1024 pixels across and looked at 256 across as the pick
/// looks), sharp and blurred by a Gaussian of sigma 1, 2, 3, 5 and 14
/// pixels, and a soft portrait's way (blurred by sigma 8 but a sharp middle
/// of 35% by 55%): the rule of `clearlyBlurred` takes no sharp photo and
/// none at sigma 1 (the closest keeps 0.760), 15 of 63 at sigma 2, 55 at
/// sigma 3, all 63 at sigma 5, 61 at sigma 14 (the other 2 have too few
/// edges left and are judged by `Sharpness`); 2 of the 63 soft portraits
/// (an apple's smooth skin, drawn shapes). Footage from OpenCV's samples,
/// never. Of the 8 missed at sigma 3, 6 keep 0.76-0.80, too close to the
/// sharp photos to call; a page of drawn notes stays steep; a pastel
/// drawing has too few edges at half the size to compare. Defocused by a
/// disc (a lens's blur) of radius 6 (sigma 3's spread): 60 of 63; a
/// streak along one direction (a shake) is not this rule's: its other
/// edges stay steep.
enum EdgeSteepness {
    /// The least span of grey levels around an edge for it to count.
    static let contrast: Float = 24
    /// The span is taken over this many pixels before the step and after it.
    static let reach = 3
    /// A look with fewer edges is not judged by them.
    static let fewest = 20
    /// Nor by what it keeps at half its size, with fewer than this there:
    /// the 99th percentile of a few hundred edges is a handful of them (a
    /// dark sharp photo's half keeps 0.75 of its few edges' steepness).
    static let fewestToCompare = 400
    /// Below this steepness a photo is clearly blurred whatever its half says.
    static let blurred = 0.40
    /// Below this steepness and keeping less than `blurredKept` of its
    /// half's, a photo is clearly blurred.
    static let soft = 0.85
    static let blurredKept = 0.76

    /// The steepness of `look` (nil below `fewest` edges) and what it keeps
    /// of its half's (nil where the steepness alone decides, or the half has
    /// fewer than `fewestToCompare` edges).
    static func measure(_ look: GreyLook) -> (steepness: Float?, kept: Float?) {
        guard let whole = steepness(look) else { return (nil, nil) }
        // Its half decides only between `blurred` and `soft`.
        guard Double(whole.value) >= blurred, Double(whole.value) < soft else { return (whole.value, nil) }
        guard let half = look.halved(), let halved = steepness(half, fewest: fewestToCompare), halved.value > 0 else {
            return (whole.value, nil)
        }
        return (whole.value, whole.value / halved.value)
    }

    /// Whether the steepness and what it keeps say clearly blurred.
    static func clearlyBlurred(steepness: Float, kept: Float?) -> Bool {
        if Double(steepness) < blurred { return true }
        guard let kept else { return false }
        return Double(steepness) < soft && Double(kept) < blurredKept
    }

    /// The 99th percentile of the edges' shares, to a 512th, and how many
    /// edges there are (nil below `fewest` edges).
    static func steepness(_ look: GreyLook, fewest: Int = fewest) -> (value: Float, edges: Int)? {
        var counts = [Int32](repeating: 0, count: bins + 1)
        var edges = 0
        let width = look.width, height = look.height
        look.grey.withUnsafeBufferPointer { grey in
            counts.withUnsafeMutableBufferPointer { counts in
                guard let base = grey.baseAddress else { return }
                for y in 0..<height { edges += scan(base + y * width, stride: 1, length: width, into: counts) }
                for x in 0..<width { edges += scan(base + x, stride: width, length: height, into: counts) }
            }
        }
        guard edges >= fewest else { return nil }
        // The share below which 99% of the edges fall.
        let rank = Int((Double(edges - 1) * 0.99).rounded(.down))
        var seen = 0
        for bin in 0...bins {
            seen += Int(counts[bin])
            if seen > rank { return (Float(bin) / Float(bins), edges) }
        }
        return (1, edges)
    }

    /// The edges along one line of `length` levels `stride` apart, counted
    /// by their share into `counts`; how many.
    @inline(__always)
    private static func scan(_ line: UnsafePointer<Float>, stride: Int, length: Int,
                             into counts: UnsafeMutableBufferPointer<Int32>) -> Int {
        guard length > 2 * reach + 1 else { return 0 }
        @inline(__always) func level(_ i: Int) -> Float { line[i * stride] }
        var edges = 0
        // The steps before, at and after position i (between i and i + 1).
        var before = abs(level(reach) - level(reach - 1)), rise = abs(level(reach + 1) - level(reach))
        for i in reach..<(length - reach - 1) {
            let after = abs(level(i + 2) - level(i + 1))
            if rise > 0, rise >= before, rise >= after {
                var low = level(i - reach), high = low
                for k in (i - reach + 1)...(i + reach + 1) {
                    let v = level(k)
                    low = min(low, v); high = max(high, v)
                }
                let span = high - low
                if span >= contrast {
                    counts[min(bins, Int(rise / span * Float(bins)))] += 1
                    edges += 1
                }
            }
            (before, rise) = (rise, after)
        }
        return edges
    }

    private static let bins = 512
}
