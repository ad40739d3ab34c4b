/// One folder's names as one `readdir` pass found them: hidden names,
/// debris and what the exclusions match left out, sorted by bytes. A walk
/// of folders (`--per-folder`) hands each folder's listing to that
/// folder's own run, which walks it without reading the folder again.
struct DirectoryListing: Sendable {
    /// The folder.
    let path: PathName
    /// Its device and inode, for the walk's loop check.
    let device: UInt64
    let inode: UInt64
    /// Its path below the INPUT (what the exclusions match).
    let relative: [UInt8]
    let names: [[UInt8]]
    /// The names the listing said were folders (d_type), so that one that
    /// vanishes before the walk reaches it is still reported.
    let folders: Set<[UInt8]>
    /// The names whose type the listing did not say (links, some file
    /// systems): checked against the folder-only exclusions once known.
    let untyped: Set<[UInt8]>
}
