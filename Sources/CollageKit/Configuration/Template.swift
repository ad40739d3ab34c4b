/// A caption or title template: text with `{field}`s, `{{` and `}}` for
/// literal braces. Parsed once, before any image is read, so that an
/// unknown field or an unbalanced brace is a usage error.
public struct Template: Equatable, Sendable {
    enum Part: Equatable, Sendable {
        case text(String)
        case field(String)
    }

    let parts: [Part]
    /// The template as given (`--label '{date} {name}'`).
    public let source: String

    /// The fields of `--label`: each image's own.
    public static let labelFields = ["name", "stem", "ext", "dir", "path", "index", "width", "height", "format", "date", "duration",
                                     "pixels", "percent", "status", "group", "time",
                                     "rating", "label", "camera", "lens", "focal", "aperture", "shutter", "iso", "stack"]
    /// The fields of `--title`: each sheet's.
    public static let titleFields = ["sheet", "count", "first", "last", "date", "group", "file", "size", "duration",
                                     "resolution", "fps", "codec", "bitrate", "audio"]

    /// Why a template cannot be used: the usage error's line, quoting the template.
    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses `source`, whose fields must be among `fields` (`labelFields` or `titleFields`).
    public init(_ source: String, fields: [String]) throws(ParseError) {
        self.source = source
        // Braces are read as scalars, not as characters: a combining mark
        // after a brace makes one character of the two, but the brace is
        // still a brace (and `{{` or `}}` still one, written back).
        let scalars = source.unicodeScalars
        var parts: [Part] = []
        var text = String.UnicodeScalarView()
        var index = scalars.startIndex
        func fail(_ why: String) -> ParseError { ParseError(description: "'\(source)': \(why)") }
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let next = scalars.index(after: index)
            if scalar == "{" {
                if next < scalars.endIndex && scalars[next] == "{" {
                    text.append("{")
                    index = scalars.index(after: next)
                    continue
                }
                guard let close = scalars[next...].firstIndex(of: "}") else { throw fail("a '{' is not closed") }
                let name = String(scalars[next..<close])
                guard !name.unicodeScalars.contains("{") else { throw fail("a '{' is not closed before the next '{'") }
                guard fields.contains(name) else {
                    throw fail("unknown field {\(name)}; the fields are " + fields.map { "{\($0)}" }.joined(separator: " "))
                }
                if !text.isEmpty { parts.append(.text(String(text))); text = String.UnicodeScalarView() }
                parts.append(.field(name))
                index = scalars.index(after: close)
            } else if scalar == "}" {
                guard next < scalars.endIndex && scalars[next] == "}" else {
                    throw fail("a '}' has no '{' (write '}}' for a brace)")
                }
                text.append("}")
                index = scalars.index(after: next)
            } else {
                text.append(scalar)
                index = next
            }
        }
        if !text.isEmpty { parts.append(.text(String(text))) }
        self.parts = parts
    }

    /// The text, each field replaced by its value (empty when it has none).
    public func render(_ value: (String) -> String?) -> String {
        parts.map { part in
            switch part {
            case .text(let text): return text
            case .field(let name): return value(name) ?? ""
            }
        }.joined()
    }

    /// Whether `{name}` is one of its fields.
    public func uses(_ name: String) -> Bool { parts.contains(.field(name)) }

    public static func == (lhs: Template, rhs: Template) -> Bool { lhs.source == rhs.source }
}
