/// A kind of suspicious image that `--flag` reports.
public enum FlagKind: String, Sendable, CaseIterable {
    /// The tile is one flat colour.
    case blank
    /// The tile looks the same as an earlier image's of the run.
    case duplicate

    /// The largest standard deviation of every band (on 0-255) that still
    /// counts as one flat colour: a blank tile, and a photo `--pick` never takes.
    static let flatDeviation = 2.0
}

/// One image flagged: `of` is the earlier image a duplicate looks like.
public struct ImageFlag: Sendable, Equatable {
    /// The image flagged.
    public let path: PathName
    /// Why: its tile is blank, or a duplicate.
    public let reason: FlagKind
    /// The earlier image a duplicate looks like; nil for a blank tile.
    public let of: PathName?
}
