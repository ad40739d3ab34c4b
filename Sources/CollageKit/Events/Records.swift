/// An output a run wrote: where, its stamp (so that a deleted or edited
/// output is redone), and the images on it in tile order.
public struct OutputRecord: Equatable, Sendable, Codable {
    /// The file written.
    public let path: PathName
    /// Its size and modification time once written.
    public let stamp: FileStamp
    /// The images on it, in tile order.
    public let images: [PathName]
}

/// An input a run considered, with its stamp when it could be read.
public struct InputRecord: Equatable, Sendable, Codable {
    /// The input's path, as given or found.
    public let path: PathName
    /// Its size and modification time, nil when it could not be read.
    public let stamp: FileStamp?
    /// The stamps of its XMP sidecars (`PathName.xmpSidecars`, nil for
    /// each that is not there); nil when it has none, as states written
    /// before sidecars were read have it: a sidecar edited alone (a new
    /// rating) changes what the run makes.
    public var sidecars: [FileStamp?]? = nil

    /// The record of `path` with `stamp`, and its sidecars' stamps now
    /// (both names are tried).
    public init(path: PathName, stamp: FileStamp?) {
        self.init(path: path, stamp: stamp, listed: nil)
    }

    /// The record of `path` with `stamp`, and the stamps now of those of
    /// its sidecars that `listed` holds (what its folder's listing found:
    /// only those are stat'ed); nil `listed`: no listing, both names are tried.
    init(path: PathName, stamp: FileStamp?, listed: [PathName]?) {
        self.path = path
        self.stamp = stamp
        sidecars = Self.sidecarStamps(of: path, listed: listed)
    }

    /// The stamps of the XMP sidecars of `path` now, of those `listed`
    /// holds (all names when nil), each of `PathName.xmpSidecars` in its
    /// place and then any other listed (a RAW partner's); nil when there
    /// are none.
    static func sidecarStamps(of path: PathName, listed: [PathName]?) -> [FileStamp?]? {
        if listed?.isEmpty == true { return nil }
        let names = path.xmpSidecars
        let stamps = names.map { name in
            listed.map { $0.contains(name) } ?? true ? FileStamp.of(name) : nil
        } + (listed ?? []).filter { !names.contains($0) }.map(FileStamp.of)
        return stamps.contains { $0 != nil } ? stamps : nil
    }
}
