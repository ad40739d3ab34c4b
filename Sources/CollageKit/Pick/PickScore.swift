/// What `--pick` judges a photo by, from its small look: how sharp it is,
/// how much of it is clipped, whether it is blank, whether its faces are
/// inside the frame, and its rating.
struct PickScore: Sendable, Equatable {
    /// 1 minus the blur estimate (`Sharpness.blur`) of the sharpest ninth
    /// of the frame: about 0.6-0.85 for a sharp photo, about 0.35-0.65 for
    /// a blurred one (a scene's own softness counts too: this ranks the
    /// frames of one moment).
    var sharpness: Double
    /// How steep its sharpest edges are, and that over the same at half
    /// the size (`EdgeSteepness.measure`; nil where not measured).
    var edgeSteepness: Float? = nil
    var edgeKept: Float? = nil
    /// The share of pixels clipped to black or white (0-1).
    var clipped: Double
    /// One flat colour: the `--flag blank` rule.
    var blank: Bool
    /// Face regions wholly inside the frame, and those the frame cuts.
    var faces = 0
    var facesCut = 0
    /// `xmp:Rating` (-1 rejected to 5), nil unrated.
    var rating: Int? = nil
    /// The photo's own size in pixels (its header's): of two as good, the
    /// larger is the better (an original before its smaller re-encoded copy).
    var pixels = 0

    /// Never picked: blank, or rated -1 (rejected).
    var excluded: Bool { blank || rating == -1 }
    /// Blurred by motion or focus beyond doubt: its sharpest edges soft,
    /// and steeper at half the size (`EdgeSteepness`); a look with too few
    /// edges to tell, by its sharpness alone.
    var clearlyBlurred: Bool {
        if let edgeSteepness { return EdgeSteepness.clearlyBlurred(steepness: edgeSteepness, kept: edgeKept) }
        return sharpness < Sharpness.clearlyBlurred
    }

    /// The photo's worth within its moment, 0-1 and a little more: sharpness
    /// 60%, exposure 40%, a little for each face inside the frame and less
    /// for each the frame cuts. (The rating ranks before it: `ranks(before:)`.)
    var quality: Double {
        let exposure = max(0, 1 - 2 * clipped)
        let faceTerm = 0.02 * Double(min(faces, 5)) - 0.05 * Double(min(facesCut, 5))
        return 0.6 * min(1, sharpness / Sharpness.sharp) + 0.4 * exposure + faceTerm
    }

    /// A face region this close to the frame's edge (a fraction of its
    /// size) is cut by it.
    static let faceEdge = 0.002

    /// Qualities closer than this are as good: the larger photo decides.
    static let sameQuality = 0.03

    /// Whether this photo is a better representative of its moment than
    /// `other`: the higher rating (unrated is 0), then the clearly higher
    /// quality, then the more pixels, then the higher quality. Equal ones
    /// are left to the input order.
    func ranks(before other: PickScore) -> Bool {
        let mine = rating ?? 0, theirs = other.rating ?? 0
        if mine != theirs { return mine > theirs }
        if abs(quality - other.quality) >= Self.sameQuality { return quality > other.quality }
        if pixels != other.pixels { return pixels > other.pixels }
        return quality > other.quality
    }
}

extension PickScore {
    /// The score of `look`; `faces` are its face regions (fractions of
    /// the upright frame, as XMP's MWG regions say them).
    init(_ look: GreyLook, faces: [(left: Double, top: Double, right: Double, bottom: Double)] = [],
         rating: Int? = nil, pixels: Int = 0) {
        self.pixels = pixels
        sharpness = look.flat ? 0 : Sharpness.sharpest(look)
        if !look.flat { (edgeSteepness, edgeKept) = EdgeSteepness.measure(look) }
        clipped = Exposure.clipped(look)
        blank = look.flat
        // The XMP reader clips a region to the frame, so a face the frame
        // cuts is one that reaches its edge.
        let edge = Self.faceEdge
        let inside = faces.filter { $0.left > edge && $0.top > edge && $0.right < 1 - edge && $0.bottom < 1 - edge }
        self.faces = inside.count
        facesCut = faces.count - inside.count
        self.rating = rating.map { min(5, max(-1, $0)) }
    }
}

/// Sharpness as the blur it lacks: the share of the variation between
/// neighbouring pixels that survives a further blur (a no-reference blur
/// estimate after Crété-Roffet et al., 2007). A sharp photo loses most of its
/// neighbour-to-neighbour variation to a 9-pixel box blur; an already
/// blurred one loses little. A ratio, so it does not depend on the photo's
/// contrast or exposure, and little on how much detail the scene holds.
enum Sharpness {
    /// Below this sharpness (1 - blur) a photo too poor in edges for
    /// `EdgeSteepness` to judge is clearly blurred (no sharp photo of 22 of
    /// Debian's wallpapers looked at 256 across falls below 0.51; 16 of the
    /// 22 blurred by a Gaussian of sigma 14 do). The sharpness ranks the
    /// frames of a moment; it is no judge of blur alone, as it spreads more
    /// between sharp photos (0.51-0.95) than a blur of sigma 3 lowers it.
    static let clearlyBlurred = 0.50
    /// At or above this a photo counts as fully sharp in `quality`.
    static let sharp = 0.8

    /// The sharpness of the sharpest ninth of `look` (a 3x3 grid: a
    /// shallow depth of field is sharp where it is focused).
    static func sharpest(_ look: GreyLook) -> Double {
        let width = look.width / 3, height = look.height / 3
        guard width > box, height > box else { return 1 - blur(look) }
        var best = 0.0
        for row in 0..<3 {
            for column in 0..<3 {
                best = max(best, 1 - blur(look.cropped(x: column * width, y: row * height, width: width, height: height)))
            }
        }
        return best
    }

    /// The box blur's length.
    static let box = 9

    /// The blur estimate, 0 (sharp) to 1 (flat): the larger of the
    /// horizontal and the vertical one.
    static func blur(_ look: GreyLook) -> Double {
        max(directional(look, dx: 1, dy: 0), directional(look, dx: 0, dy: 1))
    }

    private static func directional(_ look: GreyLook, dx: Int, dy: Int) -> Double {
        let width = look.width, height = look.height
        let length = dx == 1 ? width : height, lines = dx == 1 ? height : width
        guard length > box else { return 0 }
        var variation = 0.0, kept = 0.0
        var line = [Float](repeating: 0, count: length), blurred = [Float](repeating: 0, count: length)
        for l in 0..<lines {
            for i in 0..<length { line[i] = dx == 1 ? look.grey[l * width + i] : look.grey[i * width + l] }
            // A running box sum, the edges repeated.
            var sum: Float = 0
            for k in -(box / 2)...(box / 2) { sum += line[min(max(k, 0), length - 1)] }
            for i in 0..<length {
                blurred[i] = sum / Float(box)
                sum += line[min(i + box / 2 + 1, length - 1)] - line[max(i - box / 2, 0)]
            }
            for i in 1..<length {
                let original = abs(line[i] - line[i - 1]), after = abs(blurred[i] - blurred[i - 1])
                variation += Double(original)
                kept += Double(max(0, original - after))
            }
        }
        guard variation > 0 else { return 1 }
        return (variation - kept) / variation
    }
}

/// How much of a photo is clipped to black or white.
enum Exposure {
    /// Grey levels at or below `shadow`, or at or above `highlight`, are clipped.
    static let shadow: Float = 4
    static let highlight: Float = 251

    static func clipped(_ look: GreyLook) -> Double {
        let count = look.grey.reduce(0) { $0 + ($1 <= shadow || $1 >= highlight ? 1 : 0) }
        return Double(count) / Double(look.grey.count)
    }
}
