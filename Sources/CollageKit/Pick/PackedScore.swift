/// A photo's `PickScore` in 48 bytes (not 72), as the
/// pick keeps one for every photo looked at until its moments are chosen;
/// `looked` is false where the look failed. Nothing is rounded: the
/// score it gives back is the one it was made from.
struct PackedScore: Sendable, Equatable {
    private let sharpness: Double
    /// `PickScore.edgeSteepness` and `edgeKept`; -1: none.
    private let edgeSteepness: Float
    private let edgeKept: Float
    private let clipped: Double
    private let pixels: Int
    private let faces: Int32
    private let facesCut: Int32
    /// -1 to 5; `Int8.min`: unrated.
    private let rating: Int8
    private let flags: UInt8

    private static let lookedFlag: UInt8 = 1, blankFlag: UInt8 = 2

    /// No score: the photo's look failed.
    static let failed = PackedScore()

    private init() {
        (sharpness, edgeSteepness, edgeKept, clipped, pixels, faces, facesCut, rating, flags) = (0, -1, -1, 0, 0, 0, 0, Int8.min, 0)
    }

    init(_ score: PickScore) {
        (sharpness, clipped, pixels) = (score.sharpness, score.clipped, score.pixels)
        (edgeSteepness, edgeKept) = (score.edgeSteepness ?? -1, score.edgeKept ?? -1)
        // A header's XMP holds at most a few faces, and a rating is -1 to 5 (`PhotoSidecars`).
        (faces, facesCut) = (Int32(clamping: score.faces), Int32(clamping: score.facesCut))
        rating = score.rating.map { Int8(clamping: $0) } ?? Int8.min
        flags = Self.lookedFlag | (score.blank ? Self.blankFlag : 0)
    }

    var looked: Bool { flags & Self.lookedFlag != 0 }
    var blank: Bool { flags & Self.blankFlag != 0 }
    /// Never picked (`PickScore.excluded`).
    var excluded: Bool { blank || rating == -1 }

    var score: PickScore {
        var score = PickScore(sharpness: sharpness, clipped: clipped, blank: blank)
        (score.faces, score.facesCut, score.pixels) = (Int(faces), Int(facesCut), pixels)
        (score.edgeSteepness, score.edgeKept) = (edgeSteepness < 0 ? nil : edgeSteepness, edgeKept < 0 ? nil : edgeKept)
        score.rating = rating == Int8.min ? nil : Int(rating)
        return score
    }
}
