/// One INPUT of the command line.
public enum Input: Equatable, Sendable {
    case path(PathName)
    /// `-`: paths read from standard input.
    case standardInput
}
