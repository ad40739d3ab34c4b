internal import CVipsShim
import Synchronization

/// The error type of the `Vips` layer: what failed, libvips' own message.
public struct VipsError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// libvips could not start (missing library, failed init).
        case startup
        /// No allowed loader recognises the content.
        case unsupported
        /// A loader recognised the content but could not read it.
        case load
        /// The file claims more pixels or memory than one image may have.
        case tooLarge
        /// An operation on pixels failed (decode, convert).
        case operation
        /// Encoding to the output format failed.
        case save
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

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
