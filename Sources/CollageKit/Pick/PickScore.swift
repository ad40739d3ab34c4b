/// What `--pick` judges a photo by, from its small look: how sharp it is,
/// how much of it is clipped, whether it is blank, whether its faces are
/// inside the frame, and its rating.
struct PickScore: Sendable, Equatable {
    /// 1 minus the blur estimate (`Sharpness.blur`) of the sharpest ninth
    /// of the frame: about 0.6-0.85 for a sharp photo, about 0.35-0.65 for
    /// a blurred one (a scene's own softness counts too: this ranks the
    /// frames of one moment).
    var sharpness: Double
    /// That ninth's sharpness over its sharpness at a quarter of the size:
    /// about 1 for a sharp photo or a soft scene, lower for a photo
    /// blurred by motion or focus (its blur shrinks with the size, a
    /// scene's softness does not).
    var detailKept = 1.0
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
    /// Blurred by motion or focus beyond doubt.
    var clearlyBlurred: Bool {
        sharpness < Sharpness.clearlyBlurred
            || (sharpness < Sharpness.softBlurred && detailKept < Sharpness.softDetailKept)
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
        (sharpness, detailKept) = look.flat ? (0, 1) : Sharpness.sharpest(look)
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
    /// Below this sharpness (1 - blur) a photo is clearly blurred; below
    /// `softBlurred`, when it also keeps less than `softDetailKept` of its
    /// sharpness at a quarter of its size. A photo so judged is never
    /// picked, so these are set where no sharp photo falls: measured on 22
    /// real photos (Debian's wallpapers, at 1024 pixels, each looked at
    /// 256 across) sharp and blurred over the whole frame by a Gaussian of
    /// sigma 1, 2, 3, 5 and 14 pixels, none is judged so sharp (the lowest,
    /// a meadow of a shallow depth of field, 0.51 keeping 0.74), nor at
    /// sigma 1; 1 of 22 at sigma 2, 2 at sigma 3, 5 at sigma 5, 16 at
    /// sigma 14 (the 6 left are drawn gradients, which a blur hardly
    /// changes). Sharpness falls with the blur (medians 0.74, 0.73, 0.70,
    /// 0.64, 0.56, 0.36) but less than it spreads between sharp photos
    /// (0.51-0.95): a blur of sigma 3, under a pixel of the look, is told
    /// from a scene's own softness only beside the same scene sharp, as a
    /// burst's best is chosen.
    static let clearlyBlurred = 0.50
    static let softBlurred = 0.70
    static let softDetailKept = 0.72
    /// At or above this a photo counts as fully sharp in `quality`.
    static let sharp = 0.8

    /// The sharpness of the sharpest ninth of `look` (a 3x3 grid: a
    /// shallow depth of field is sharp where it is focused), and how much
    /// of it that ninth keeps from its look at a quarter of the size.
    static func sharpest(_ look: GreyLook) -> (sharpness: Double, detailKept: Double) {
        let width = look.width / 3, height = look.height / 3
        guard width > box, height > box else {
            let sharpness = 1 - blur(look)
            return (sharpness, sharpness / max(0.01, 1 - blur(quarter(look))))
        }
        var best: (sharpness: Double, part: GreyLook)?
        for row in 0..<3 {
            for column in 0..<3 {
                let part = look.cropped(x: column * width, y: row * height, width: width, height: height)
                let sharpness = 1 - blur(part)
                if best == nil || sharpness > best!.sharpness { best = (sharpness, part) }
            }
        }
        return (best!.sharpness, best!.sharpness / max(0.01, 1 - blur(quarter(best!.part))))
    }

    private static func quarter(_ look: GreyLook) -> GreyLook { look.halved()?.halved() ?? look }
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
