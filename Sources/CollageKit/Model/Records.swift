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

    /// The record of `path` with `stamp`, and its sidecars' stamps now.
    public init(path: PathName, stamp: FileStamp?) {
        self.path = path
        self.stamp = stamp
        sidecars = Self.sidecarStamps(of: path)
    }

    /// The stamps of the XMP sidecars of `path` now; nil when there are none.
    static func sidecarStamps(of path: PathName) -> [FileStamp?]? {
        let stamps = path.xmpSidecars.map(FileStamp.of)
        return stamps.contains { $0 != nil } ? stamps : nil
    }
}
