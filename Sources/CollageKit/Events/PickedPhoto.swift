/// `--pick`: a photo placed as the best of its moment, the `picked` event's fields.
public struct PickedPhoto: Sendable, Equatable {
    /// The photo.
    public let path: PathName
    /// Its moment's place among the run's (or group's, or folder's) moments shown, from 1.
    public let moment: Int
    /// How many photos the moment holds, this one among them.
    public let members: Int
    /// What it was judged by.
    public let score: PickedScore

    /// A photo picked to stand for `members` photos of moment `moment`.
    public init(path: PathName, moment: Int, members: Int, score: PickedScore) {
        (self.path, self.moment, self.members, self.score) = (path, moment, members, score)
    }
}

/// What `--pick` judged a photo by, as its `picked` event says it.
public struct PickedScore: Sendable, Equatable {
    /// 0-1: how sharp (1 minus its blur estimate).
    public let sharpness: Double
    /// 0-1: the share of its pixels not clipped to black or white.
    public let exposure: Double
    /// Its XMP face regions wholly inside the frame.
    public let faces: Int
    /// Its XMP face regions the frame cuts (reaching its edge).
    public let facesCut: Int
    /// Its rating (-1 to 5), nil when unrated.
    public let rating: Int?

    /// A score as the event says it.
    public init(sharpness: Double, exposure: Double, faces: Int, facesCut: Int, rating: Int?) {
        (self.sharpness, self.exposure, self.faces, self.facesCut, self.rating) =
            (sharpness, exposure, faces, facesCut, rating)
    }
}
