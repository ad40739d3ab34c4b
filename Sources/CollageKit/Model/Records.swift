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
}
