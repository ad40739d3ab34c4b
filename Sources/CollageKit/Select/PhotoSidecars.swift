import FileFacts
import Media
import Glibc

/// A photo's XMP sidecars (`PathName.xmpSidecars`). The first one that can be used gives
/// the photo's rating and label, in place of its embedded XMP's: a sidecar
/// is where those programs keep the edited truth.
enum PhotoSidecars {
    /// Puts the first usable of `sidecars` (in the order of
    /// `PathName.xmpSidecars`) rating and label in `header`; lines
    /// saying which sidecars (or the embedded XMP) were ignored and why
    /// (without the photo's path). A sidecar that does not exist is not said.
    static func apply(to header: inout ImageHeader, from sidecars: [PathName]) -> [String] {
        var notes: [String] = []
        for sidecar in sidecars {
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
