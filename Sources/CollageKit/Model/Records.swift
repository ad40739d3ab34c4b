/// An output a run wrote: where, its stamp (so that a deleted or edited
/// output is redone), and the images on it in tile order.
public struct OutputRecord: Equatable, Sendable, Codable {
    public let path: PathName
    public let stamp: FileStamp
    public let images: [PathName]
}

/// An input a run considered, with its stamp when it could be read.
public struct InputRecord: Equatable, Sendable, Codable {
    public let path: PathName
    public let stamp: FileStamp?
}
