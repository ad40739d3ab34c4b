internal import CVipsShim
import FileFacts
import Locking

/// libvips' error buffer is one for the whole process: when two images
/// fail at once, the first to read it would take both reasons ("cannot
/// decode png: VipsJpeg: Corrupt JPEG data"), and of two JPEGs, each the
/// other's. So while an image is read (`DecoderWarnings.during`, on the
/// calling thread and on libvips' workers computing its pixels) libvips'
/// messages go to that image's capture, never to the shared buffer
/// (`vips_verror` in CVipsShim.c), and its failure reads its capture alone.
/// The threads of a pool libvips starts while a capture is current (a
/// JPEG's thumbnail reads the file on them) run with that capture current
/// too (`vips_threadpool_run` in CVipsShim.c), so a truncated JPEG's
/// "Premature end of input file" is its own, never another's. What is
/// written where no capture is current at all still goes to the buffer,
/// which is read, when an image's capture had nothing, and cleared under
/// one lock; a line a loader wrote (its domain names it) is kept for an
/// image of that format, and lines of other loaders wait here for theirs.
enum LibvipsErrors {
    /// Domains each loader writes its errors under, lowercased prefixes.
    private static let domains: [String: [String]] = [
        "jpeg": ["vipsjpeg", "jpegload", "jpeg2vips"], "png": ["vipspng", "pngload"],
        "tiff": ["tiff2vips", "tiffload", "vipstiff"], "gif": ["gifload", "nsgif"],
        "webp": ["webpload", "webp2vips"], "heif": ["heifload", "heif"],
        "jxl": ["jxlload", "vipsjxl", "jxl"],
    ]
    /// Lines of a loader not yet taken by an image of its format.
    private static let waiting = Locked<[(loader: String, line: String)]>([])
    private static let maxWaiting = 32

    /// The loader whose domain starts `line` ("VipsJpeg: ..."), if any.
    static func loader(of line: Substring) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let domain = line[..<colon].lowercased()
        return domains.first { $0.value.contains { domain.hasPrefix($0) } }?.key
    }

    /// Reads and clears libvips' buffer: its lines that belong to `loader`
    /// or to no loader (libvips' own operations); other loaders' lines are
    /// kept for them. With `loader`, also the lines kept for it.
    static func take(for loader: String?) -> [Substring] {
        // An image's own messages, when its capture had any; else those
        // libvips wrote on threads of its own pool (where no capture is
        // current), which only their domain attributes.
        if let capture = cvips_capture_current(), cvips_capture_errored(capture) != 0 { return captured(capture) }
        return waiting.withLock { waiting in
            var text = ""
            if let raw = vips_error_buffer_copy() {
                text = String(cString: raw)
                g_free(raw)
            }
            var mine: [Substring] = []
            if let loader {
                mine += waiting.filter { $0.loader == loader }.map { Substring($0.line) }
                waiting.removeAll { $0.loader == loader }
            }
            for line in text.split(separator: "\n") {
                let owner = Self.loader(of: line.drop { $0 == " " })
                if owner == nil || owner == loader { mine.append(line) } else { waiting.append((owner!, String(line))) }
            }
            if waiting.count > maxWaiting { waiting.removeFirst(waiting.count - maxWaiting) }
            return mine
        }
    }

    /// Drops the lines that hold `fragment` (an expected failure, such as
    /// no loader knowing the content); every other line stays for its image.
    static func drop(linesContaining fragment: String) {
        if let capture = cvips_capture_current() {
            // The image's own messages: the others go back to its capture.
            let kept = captured(capture).filter { !$0.contains(fragment) }
            cvips_capture_forget_errors(capture)
            for line in kept { cvips_error_append(String(line)) }
            return
        }
        waiting.withLock { waiting in
            guard let raw = vips_error_buffer_copy() else { return }
            let text = String(cString: raw)
            g_free(raw)
            for line in text.split(separator: "\n") where !line.contains(fragment) {
                if let owner = Self.loader(of: line.drop { $0 == " " }) {
                    waiting.append((owner, String(line)))
                } else {
                    cvips_error_append(String(line))
                }
            }
        }
    }
}

extension LibvipsErrors {
    /// The messages written while `capture` was current, taken from it.
    private static func captured(_ capture: OpaquePointer) -> [Substring] {
        guard let raw = cvips_capture_take_errors(capture) else { return [] }
        defer { g_free(raw) }
        return String(cString: raw).split(separator: "\n")
    }
}

extension VipsError {
    /// Takes libvips' error buffer (see `LibvipsErrors`: another loader's
    /// lines stay for its own image) and makes it one line.
    static func fromLibvips(_ code: Code, _ context: String, loader: String? = nil) -> VipsError {
        VipsError(code, oneLine(context: context, libvips: LibvipsErrors.take(for: loader).joined(separator: "\n")))
    }

    static func oneLine(context: String, libvips: String) -> String {
        // libvips' buffer holds lines like "jpegload_source: Premature end of input file".
        var lines: [Substring] = []
        for line in libvips.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            if !trimmed.isEmpty && !lines.contains(trimmed) { lines.append(trimmed) }
        }
        if lines.isEmpty { return context }
        return context + ": " + lines.joined(separator: "; ")
    }
}
