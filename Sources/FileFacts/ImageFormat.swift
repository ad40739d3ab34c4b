/// The image formats `collage` reads and writes: one table that the folder
/// walk's filter, the allowed loaders, the output naming and the option
/// checks all read, so that adding a format is one line here.
public struct ImageFormat: Sendable, Equatable {
    /// The short name, as in `--json`'s `format` ("jpeg", "png", ...).
    public let name: String
    /// File name extensions, lower case, the usual one first.
    public let extensions: [String]
    /// libvips' loader class; its file, buffer and source subclasses share the prefix.
    public let loader: String
    /// libvips' saver suffix, or nil when we never write this format.
    public let saverSuffix: String?
    /// Whether the saver takes a quality (`Q=`).
    public let hasQuality: Bool

    public static let all: [ImageFormat] = [
        ImageFormat(name: "jpeg", extensions: ["jpg", "jpeg"], loader: "VipsForeignLoadJpeg",
                    saverSuffix: ".jpg", hasQuality: true),
        ImageFormat(name: "png", extensions: ["png"], loader: "VipsForeignLoadPng", saverSuffix: ".png", hasQuality: false),
        ImageFormat(name: "webp", extensions: ["webp"], loader: "VipsForeignLoadWebp", saverSuffix: ".webp", hasQuality: true),
        ImageFormat(name: "tiff", extensions: ["tif", "tiff"], loader: "VipsForeignLoadTiff",
                    saverSuffix: ".tif", hasQuality: false),
        ImageFormat(name: "gif", extensions: ["gif"], loader: "VipsForeignLoadNsgif", saverSuffix: ".gif", hasQuality: false),
        ImageFormat(name: "heif", extensions: ["heic", "heif"], loader: "VipsForeignLoadHeif",
                    saverSuffix: ".heic", hasQuality: true),
        // AVIF is HEIF with AV1 inside: the same loader; its own saver suffix.
        ImageFormat(name: "avif", extensions: ["avif"], loader: "VipsForeignLoadHeif", saverSuffix: ".avif", hasQuality: true),
        ImageFormat(name: "jxl", extensions: ["jxl"], loader: "VipsForeignLoadJxl", saverSuffix: ".jxl", hasQuality: true),
    ]

    /// Extensions of files read and never written: `hif`, the HEIF photos
    /// of cameras (Canon, Sony, Fujifilm), and MPO (stereo cameras, some
    /// cameras' JPEGs), a JPEG with more pictures after its first; the JPEG
    /// loader shows the first.
    public static let readOnlyExtensions: Set<String> = ["hif", "mpo"]

    /// Every extension of every format, lower case (the folder walk's filter).
    public static let inputExtensions: Set<String> = Set(all.flatMap(\.extensions)).union(readOnlyExtensions)

    /// The format an output extension (any case) asks for, if we write it.
    public static func output(extension name: String) -> ImageFormat? {
        let lowered = name.lowercased()
        return all.first { $0.saverSuffix != nil && $0.extensions.contains(lowered) }
    }

    /// The saver suffix for an output extension: ".heif" stays ".heif" so
    /// libvips picks the same HEIF saver by its own name.
    public static func saverSuffix(extension name: String) -> String? {
        guard let format = output(extension: name) else { return nil }
        return format.name == "heif" ? "." + name.lowercased() : format.saverSuffix
    }

    /// The output extensions, in table order ("jpg, jpeg, png, ...").
    public static var outputExtensionList: String {
        all.filter { $0.saverSuffix != nil }.flatMap(\.extensions).joined(separator: ", ")
    }
}
