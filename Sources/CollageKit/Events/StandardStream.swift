import Glibc

/// Whole lines to standard output or standard error, written with write(2)
/// so that bytes (paths that are not UTF-8) go out exactly. A closed pipe
/// (EPIPE) is not an error: the reader went away.
public struct StandardStream: Sendable {
    /// The file descriptor written to: 1 or 2.
    public let descriptor: Int32

    /// Standard output (descriptor 1).
    public static let output = StandardStream(descriptor: 1)
    /// Standard error (descriptor 2).
    public static let error = StandardStream(descriptor: 2)

    /// Whether the stream is a terminal (isatty(3)).
    public var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Writes `line`'s UTF-8 and a newline.
    public func write(line: String) { write(bytes: Array(line.utf8) + [UInt8(ascii: "\n")]) }

    /// Writes all of `bytes` exactly, continuing short writes; a failed write is ignored.
    public func write(bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
    }
}
