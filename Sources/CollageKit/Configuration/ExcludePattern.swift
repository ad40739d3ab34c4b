/// One `--exclude` pattern, matched on the bytes of a path below an INPUT
/// folder (`2024/tmp/a.jpg`), whole: `*` is any run of bytes within a
/// name, `?` one byte of a name, `[a-z]` (`[!a-z]` or `[^a-z]`) one byte of
/// a set, `**` any run of bytes across folders (`**/` also none: `**/x`
/// matches `x` at the top too), `\` takes the next byte as it is. A
/// pattern ending in `/` matches folders only; a leading `/` or `./` is
/// the INPUT itself. Names that are not UTF-8 match byte for byte.
public struct ExcludePattern: Sendable, Equatable, CustomStringConvertible {
    private enum Token: Sendable, Equatable {
        case byte(UInt8)
        case oneByte
        case set(negated: Bool, ranges: [ClosedRange<UInt8>])
        case star
        case anything
        /// `**/`: nothing, or any run of whole folders.
        case folders
    }

    /// The pattern as given.
    public let source: [UInt8]
    /// Ends in `/`: only folders match.
    public let foldersOnly: Bool
    private let tokens: [Token]

    public var description: String { String(decoding: source, as: UTF8.self) }

    /// Parses a pattern; a bad one throws a message that says what is wrong.
    public init(_ source: [UInt8]) throws(ExcludeError) {
        self.source = source
        var body = source[...]
        if body.starts(with: Array("./".utf8)) { body = body.dropFirst(2) }
        while body.first == UInt8(ascii: "/") { body = body.dropFirst() }
        foldersOnly = body.last == UInt8(ascii: "/")
        while body.last == UInt8(ascii: "/") { body = body.dropLast() }
        guard !body.isEmpty else { throw ExcludeError("an empty pattern matches nothing") }
        tokens = try Self.tokens(Array(body))
    }

    private static func tokens(_ bytes: [UInt8]) throws(ExcludeError) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw ExcludeError("a '\\' at the end escapes nothing") }
                tokens.append(.byte(bytes[index]))
                index += 1
            case UInt8(ascii: "?"):
                tokens.append(.oneByte)
            case UInt8(ascii: "*"):
                var stars = 1
                while index < bytes.count, bytes[index] == UInt8(ascii: "*") { stars += 1; index += 1 }
                guard stars <= 2 else { throw ExcludeError("three or more '*' in a row: use '*' or '**'") }
                if stars == 1 { tokens.append(.star); continue }
                if index < bytes.count, bytes[index] == UInt8(ascii: "/") {
                    index += 1
                    tokens.append(.folders)
                } else {
                    tokens.append(.anything)
                }
            case UInt8(ascii: "["):
                let (token, next) = try set(bytes, from: index)
                tokens.append(token)
                index = next
            default:
                tokens.append(.byte(byte))
            }
        }
        return tokens
    }

    /// A `[...]` set starting after its `[`: the token and where the pattern goes on.
    private static func set(_ bytes: [UInt8], from start: Int) throws(ExcludeError) -> (Token, Int) {
        var index = start
        var negated = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "!") || bytes[index] == UInt8(ascii: "^") {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt8>] = []
        var first = true
        while index < bytes.count {
            var low = bytes[index]
            if low == UInt8(ascii: "]") && !first { return (.set(negated: negated, ranges: ranges), index + 1) }
            first = false
            if low == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { break }
                low = bytes[index]
            }
            index += 1
            var high = low
            if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] != UInt8(ascii: "]") {
                high = bytes[index + 1]
                index += 2
                guard low <= high else {
                    throw ExcludeError("the range '\(Character(Unicode.Scalar(low)))-\(Character(Unicode.Scalar(high)))' is backwards")
                }
            }
            ranges.append(low...high)
        }
        throw ExcludeError("a '[' is not closed by ']' (write '\\[' for the character)")
    }

    /// Whether the pattern matches `path`, a path below the INPUT (no
    /// leading `/`), as a whole; `folder`: whether it names a folder.
    public func matches(_ path: ArraySlice<UInt8>, folder: Bool) -> Bool {
        if foldersOnly && !folder { return false }
        let bytes = Array(path)
        let count = bytes.count
        // reachable[p]: the tokens so far can match bytes[0..<p].
        var reachable = [Bool](repeating: false, count: count + 1)
        reachable[0] = true
        let slash = UInt8(ascii: "/")
        for token in tokens {
            var next = [Bool](repeating: false, count: count + 1)
            var any = false
            switch token {
            case .byte(let byte):
                for p in 0..<count where reachable[p] && bytes[p] == byte { next[p + 1] = true; any = true }
            case .oneByte:
                for p in 0..<count where reachable[p] && bytes[p] != slash { next[p + 1] = true; any = true }
            case .set(let negated, let ranges):
                for p in 0..<count where reachable[p] && bytes[p] != slash
                    && ranges.contains(where: { $0.contains(bytes[p]) }) != negated {
                    next[p + 1] = true
                    any = true
                }
            case .star:
                var open = false  // a reachable start with no '/' since
                for p in 0...count {
                    if reachable[p] { open = true }
                    if open { next[p] = true; any = true }
                    if p < count && bytes[p] == slash { open = false }
                }
            case .anything:
                guard let first = reachable.firstIndex(of: true) else { break }
                for p in first...count { next[p] = true }
                any = true
            case .folders:
                guard let first = reachable.firstIndex(of: true) else { break }
                next[first] = true
                any = true
                for p in first..<count where bytes[p] == slash { next[p + 1] = true }
                for p in first...count where reachable[p] { next[p] = true }
            }
            guard any else { return false }
            reachable = next
        }
        return reachable[count]
    }
}

/// Why a pattern or a pattern file cannot be used: one line.
public struct ExcludeError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
