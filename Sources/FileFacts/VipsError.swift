/// The error type of the `Vips` layer: what failed, libvips' own message.
/// Defined below `Vips`, so that the structure checks, which run before
/// libvips sees a file, fail the way its loaders do; `Vips` makes one from
/// libvips' error buffer (`LibvipsErrors`).
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
}
