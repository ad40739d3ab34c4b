/// One INPUT of the command line.
public enum Input: Equatable, Sendable {
    /// A file (always tried) or a folder (scanned recursively).
    case path(PathName)
    /// `-`: paths read from standard input.
    case standardInput
}
