internal import CVipsShim
import FileFacts

/// What the decoders said while one image was read: libpng, libtiff and
/// the like give their reason ("iTXt: chunk data is too large", "IDAT: CRC
/// error") as a warning, and libvips' error buffer then holds only
/// "libpng read error". Each capture collects the warnings of its own
/// image, whichever thread decodes it, so two decodes at once never swap
/// reasons. Used within one call, never shared.
final class DecoderWarnings {
    private let capture: OpaquePointer
    /// The loader decoding (libvips' short name): its lines of libvips'
    /// error buffer left by another image's failure are this image's.
    private let loader: String?

    init(loader: String? = nil) {
        capture = cvips_capture_new()
        self.loader = loader
    }
    deinit { cvips_capture_unref(capture) }

    /// Runs `body` with this capture current on the calling thread; a
    /// VipsError it throws gains the warnings as its reason.
    func during<R>(_ body: () throws -> R) throws -> R {
        let previous = cvips_capture_enter(capture)
        defer { cvips_capture_leave(previous) }
        do {
            return try body()
        } catch let error as VipsError {
            let kept = loader.map { LibvipsErrors.take(for: $0).joined(separator: "\n") } ?? ""
            throw error.adding(warnings: kept + "\n" + text)
        }
    }

    /// `image`, with this capture current wherever its pixels are computed
    /// (libvips' worker threads).
    func tagged(_ image: Image) throws -> Image {
        try image.apply(.operation, "cannot decode") { cvips_capture_image($0, $1, capture) }
    }

    /// The warnings so far, one a line.
    var text: String {
        guard let raw = cvips_capture_text(capture) else { return "" }
        defer { g_free(raw) }
        return String(cString: raw)
    }
}

extension VipsError {
    /// The same error with the decoder's warnings added, each once, and
    /// none it already says.
    func adding(warnings: String) -> VipsError {
        let lines = warnings.split(separator: "\n").map { $0.trimmingPrefix(" ") }
            // libvips' own "error in tile 0 x 0" adds nothing to the reason.
            .filter { !$0.isEmpty && !$0.hasPrefix("error in tile") && !message.contains($0) }
        guard !lines.isEmpty else { return self }
        return VipsError(code, VipsError.oneLine(context: message, libvips: lines.joined(separator: "\n")))
    }
}

private extension Substring {
    func trimmingPrefix(_ character: Character) -> Substring { drop { $0 == character } }
}
