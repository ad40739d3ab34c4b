import Glibc

/// Whole lines to standard output or standard error, written with write(2)
/// so that bytes (paths that are not UTF-8) go out exactly. A closed pipe
/// (EPIPE) is not an error: the reader went away.
public struct StandardStream: Sendable {
    public let descriptor: Int32

    public static let output = StandardStream(descriptor: 1)
    public static let error = StandardStream(descriptor: 2)

    public var isTerminal: Bool { isatty(descriptor) == 1 }

    public func write(line: String) { write(bytes: Array(line.utf8) + [UInt8(ascii: "\n")]) }

    public func write(bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
    }
}
