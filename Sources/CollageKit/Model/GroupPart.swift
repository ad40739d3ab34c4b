import FileFacts
import Vips

/// One group's part of a `--group-by` job: what its run places, read in a
/// header pass over the whole input before the groups were cut.
struct GroupPart: Sendable {
    let name: String
    /// Nil for a group run from a plan, whose images the plan names.
    let images: [ChosenImage]?
}

/// An image chosen on its header, its file let go: reopened when it is
/// used, and used only if it is still the file whose header was read.
struct ChosenImage: Sendable {
    let path: PathName
    let header: ImageHeader
    let stamp: FileStamp
    let partners: [PathName]
    /// Its sidecars the listing holds (`AcceptedImage.sidecars`).
    var sidecars: [PathName]? = nil
}
