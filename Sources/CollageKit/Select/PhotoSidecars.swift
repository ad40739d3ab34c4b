import FileFacts
import Media
import Glibc

/// A photo's XMP sidecars, beside it: `NAME.EXT.xmp` (darktable's, naming
/// this very file) first, then `NAME.xmp` (Lightroom's and digiKam's, which
/// a RAW photo and its JPEG share). The first one that can be used gives
/// the photo's rating and label, in place of its embedded XMP's: a sidecar
/// is where those programs keep the edited truth.
enum PhotoSidecars {
    /// Where the sidecars of the photo at `path` would be, in the order they are tried.
    static func names(of path: PathName) -> [PathName] {
        let name = path.lastComponent
        guard !name.isEmpty else { return [] }
        let xmp = Array(".xmp".utf8)
        var names = [path.directory.appending(name + xmp)]
        if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex {
            names.append(path.directory.appending(Array(name[..<dot]) + xmp))
        }
        return names
    }

    /// Puts the first usable sidecar's rating and label in `header`; lines
    /// saying which sidecars (or the embedded XMP) were ignored and why
    /// (without the photo's path). A sidecar that does not exist is not said.
    static func apply(to header: inout ImageHeader, of path: PathName) -> [String] {
        var notes: [String] = []
        for sidecar in names(of: path) {
            switch FileContents.read(sidecar, limit: ImageHeader.sidecarLimit, regularOnly: true) {
            case .failure(let failure) where failure.code == ENOENT || failure.code == ENOTDIR:
                continue
            case .failure(let failure):
                let why = failure.code == EFBIG ? "larger than \(ImageHeader.sidecarLimit >> 20) MiB" : failure.description
                notes.append("XMP sidecar \(sidecar.lastComponentText) ignored: \(why)")
            case .success(let bytes):
                if let problem = header.take(sidecar: bytes) {
                    notes.append("XMP sidecar \(sidecar.lastComponentText) ignored: \(problem)")
                } else {
                    return notes
                }
            }
        }
        if let problem = header.xmpProblem { notes.append("its XMP rating and label ignored: \(problem)") }
        return notes
    }
}

extension PathName {
    /// The last component, as text (for a line said to a person).
    fileprivate var lastComponentText: String { String(decoding: lastComponent, as: UTF8.self) }
}
