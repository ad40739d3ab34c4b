import CollageKit
import Logging

/// Log lines on standard error as `collage: message`.
/// On a terminal (unless NO_COLOR is set or TERM is dumb) warnings are
/// yellow and errors red; a progress line, if any, is kept below them.
public struct StandardErrorLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let stream: StandardStream
    private let colour: Bool

    /// Lines at `level` and above on `stream`; `environment`'s NO_COLOR and TERM decide the colour.
    public init(level: Logger.Level, stream: StandardStream = .error, environment: [String: String] = [:]) {
        self.logLevel = level
        self.stream = stream
        let noColour = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        self.colour = stream.isTerminal && !noColour && environment["TERM"] != "dumb"
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var text = "\(event.message)"
        if colour {
            switch event.level {
            case .error, .critical: text = "\u{1B}[31m" + text + "\u{1B}[0m"
            case .warning: text = "\u{1B}[33m" + text + "\u{1B}[0m"
            default: break
            }
        }
        ProgressLine.shared.around { stream.write(line: "collage: " + text) }
    }
}
