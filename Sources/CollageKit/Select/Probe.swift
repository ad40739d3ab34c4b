import FileFacts
import Glibc
import Media
import Vips

/// Why the header check did not accept a candidate.
enum ProbeFailure: Error {
    case rejected(RejectReason, String)
    case failed(String)
}

/// An image that passed the header checks, with its file still open: the
/// bytes decoded later are the bytes checked now.
struct AcceptedImage: Sendable {
    let path: PathName
    let header: ImageHeader
    let file: OpenFile
    /// Its place among the images accepted so far in the run (0-based).
    var ordinal = 0
    /// The RAW photo or movie of the same shot, which stands in for it if
    /// it fails to decode (see `Decode.decodePartner`).
    var partners: [PathName] = []
    /// Its XMP sidecars its folder's listing holds (`InputFile.sidecars`):
    /// the only ones `--skip-unchanged` stats; nil: a file a person named.
    var sidecars: [PathName]? = nil
    /// What could not be used of its XMP (a sidecar not XML, a rating out
    /// of range), one line each without its path, said when it is accepted.
    var notes: [String] = []

    var shape: ImageShape { ImageShape(header) }
}

/// The header check: opens a candidate, reads its header (no pixels), and
/// accepts it only if it is a supported image, not over the pixel limit,
/// and not portrait (unless allowed).
struct Probe: Sendable {
    let maxPixels: Int
    let allowPortrait: Bool
    /// The most one image's decoder may hold at once (`--decode-memory`).
    var maxBuffer = StructureCheck.bufferLimit
    /// `--raw` and `--video`: what RAW photos and videos give.
    var media = MediaOptions()
    /// `--min-rating`: photos rated less (unrated counts 0) are rejected.
    var minRating: Int? = nil

    /// `sidecars`: its XMP sidecars that are there, when its folder's
    /// listing says (nil: every name of `PathName.xmpSidecars` is tried).
    func check(_ path: PathName, sidecars: [PathName]? = nil) -> Result<AcceptedImage, ProbeFailure> {
        let file: OpenFile
        switch OpenFile.open(path) {
        case .success(let opened): file = opened
        case .failure(let failure): return .failure(failure)
        }
        if file.status().st_size == 0 {
            return .failure(.rejected(.unsupported, PassedOver.emptyFileDetail))
        }
        var header: ImageHeader
        do {
            header = try MediaFile.header(descriptor: file.descriptor, maxPixels: maxPixels, maxBuffer: maxBuffer,
                                          options: media)
        } catch let error as VipsError where error.code == .unsupported {
            return .failure(.rejected(.unsupported, error.message))
        } catch let error as VipsError where error.code == .tooLarge {
            return .failure(.rejected(.tooLarge, error.message))
        } catch {
            return .failure(.failed(String(describing: error)))
        }
        if header.pixelCount > maxPixels {
            return .failure(.rejected(.tooLarge, "\(header.width)x\(header.height) is over --max-pixels \(maxPixels)"))
        }
        if header.isPortrait && !allowPortrait {
            return .failure(.rejected(.portrait, "\(header.displayedWidth)x\(header.displayedHeight)"))
        }
        let notes = PhotoSidecars.apply(to: &header, from: sidecars ?? path.xmpSidecars)
        if let minRating, (header.rating ?? 0) < minRating {
            let rated = header.rating.map { $0 < 0 ? "rated -1 (rejected)" : "rated \($0)" } ?? "unrated"
            return .failure(.rejected(.rating, (["\(rated), under --min-rating \(minRating)"] + notes).joined(separator: "; ")))
        }
        return .success(AcceptedImage(path: path, header: header, file: file, notes: notes))
    }
}
