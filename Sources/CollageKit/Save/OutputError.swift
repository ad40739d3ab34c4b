/// The error type of the output layer, with the exit status it maps to.
public struct OutputError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable {
        /// The output could not be created: folder missing, not writable,
        /// name too long (exit 73).
        case cannotCreate
        /// Writing failed part-way: disk full, I/O error (exit 74).
        case ioError
        /// The run was interrupted before the file was put in place.
        case cancelled
    }

    public let code: Code
    public let path: PathName
    public let message: String

    public var description: String { "\(path): \(message)" }
}
