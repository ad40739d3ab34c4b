/// What a file is, by the extension of its name: the one table that says
/// which names a folder scan considers and which it passes over. Images
/// are `ImageFormat`'s extensions; RAW photos, videos and sidecars are
/// listed here. The name only decides whether a file is considered and
/// how it pairs with others; what decodes it is decided by its content.
public enum FileKind: String, Sendable, CaseIterable {
    /// One of `ImageFormat`'s extensions.
    case image
    /// A camera's RAW photo.
    case raw
    /// A video (considered with `--video`).
    case video
    /// Metadata beside a photo: XMP, a Takeout record, an edit list, a
    /// video's thumbnail, a folder's thumbnail database or settings.
    case sidecar
    /// Anything else: never considered in a folder.
    case other

    /// RAW photos' extensions, lower case.
    public static let rawExtensions: Set<String> = [
        "cr2", "cr3", "nef", "nrw", "arw", "srf", "sr2", "dng", "orf", "rw2", "raf", "pef", "srw", "3fr", "iiq",
        "erf", "kdc", "mrw", "rwl", "x3f",
    ]

    /// Videos' extensions, lower case.
    public static let videoExtensions: Set<String> = ["mp4", "mov", "m4v", "3gp", "mkv", "webm", "avi", "mts", "m2ts"]

    /// Sidecars' extensions, lower case.
    public static let sidecarExtensions: Set<String> = ["xmp", "json", "aae", "thm", "db", "ini"]

    /// The stills a RAW photo or a Live Photo's movie is shown by when both
    /// have the same stem in the same folder (the camera's or the phone's
    /// rendering of the shot).
    public static let stillExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "hif"]

    /// The kind of a lower-case extension (without the dot).
    public static func of(extension name: String) -> FileKind {
        if ImageFormat.inputExtensions.contains(name) { return .image }
        if rawExtensions.contains(name) { return .raw }
        if videoExtensions.contains(name) { return .video }
        if sidecarExtensions.contains(name) { return .sidecar }
        return .other
    }
}
