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

    /// Takes libvips' error buffer and makes it one line.
    static func fromLibvips(_ code: Code, _ context: String) -> VipsError {
        VipsError(code, oneLine(context: context, libvips: LibvipsErrors.take()))
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

/// libvips keeps one error buffer for the whole process, written by every
/// thread. Every read and every clear of it goes through here, under one
/// lock: a failure takes what is there right after it failed (a decode
/// appends its message just before it returns), and a failure that was
/// expected (no loader knows the content) removes only its own line,
/// never another thread's message that has not been taken yet.
enum LibvipsErrors {
    private static let lock = Mutex(())

    /// The buffer's text, copied and cleared.
    static func take() -> String {
        lock.withLock { _ in takeUnlocked() }
    }

    /// Drops the lines that hold `fragment`; the rest stay for their threads.
    static func drop(linesContaining fragment: String) {
        lock.withLock { _ in
            let kept = takeUnlocked().split(separator: "\n").filter { !$0.contains(fragment) }
            for line in kept { cvips_error_append(String(line)) }
        }
    }

    private static func takeUnlocked() -> String {
        guard let raw = vips_error_buffer_copy() else { return "" }
        defer { g_free(raw) }
        return String(cString: raw)
    }
}