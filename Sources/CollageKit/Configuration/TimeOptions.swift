/// `--sort name|taken|mtime`: the order images are placed in.
public enum ImageOrder: String, Sendable, CaseIterable {
    /// The scan order (or standard input's), as the walk meets them.
    case name
    /// When each photo was taken (see `TakenTime`).
    case taken
    /// Each file's modification time.
    case mtime
}

/// `--group-by day|month|year|gap=DURATION`: what cuts the photos into
/// groups, each its own collage or sheets.
public enum GroupBy: Sendable, Equatable, CustomStringConvertible {
    /// A calendar day of the photo's own local time, named `2026-08-14`.
    case day
    /// A calendar month, named `2026-08`.
    case month
    /// A calendar year, named `2026`.
    case year
    /// A pause longer than this between two photos starts a new group.
    case gap(GapDuration)

    /// The value as `--group-by` takes it; the error is a usage error's line.
    public static func parse(_ text: String) -> Result<GroupBy, TimeOptionError> {
        switch text {
        case "day": return .success(.day)
        case "month": return .success(.month)
        case "year": return .success(.year)
        default:
            guard text.hasPrefix("gap=") else {
                return .failure(TimeOptionError("--group-by takes day, month, year or gap=DURATION (90m, 3h, 2d); not '\(text)'"))
            }
            return GapDuration.parse(String(text.dropFirst(4))).map(GroupBy.gap)
        }
    }

    public var description: String {
        switch self {
        case .day: "day"
        case .month: "month"
        case .year: "year"
        case .gap(let duration): "gap=\(duration)"
        }
    }
}

/// A length of time as `gap=` takes it: whole numbers with a unit, `s`,
/// `m`, `h` or `d` (`90m`, `3h`, `2d`, `1h30m`), at least a second and at
/// most `maxSeconds`. Written back largest unit first (`1d2h`).
public struct GapDuration: Sendable, Equatable, CustomStringConvertible {
    /// The length in seconds, 1 to `maxSeconds`.
    public let seconds: Int

    /// Ten thousand days: far longer than any pause between two events.
    public static let maxSeconds = 10_000 * 86_400
    static let units: [(letter: Character, seconds: Int)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)]

    /// nil unless `seconds` is 1 to `maxSeconds`.
    public init?(seconds: Int) {
        guard (1...Self.maxSeconds).contains(seconds) else { return nil }
        self.seconds = seconds
    }

    /// The text after `gap=` (`3h`, `1h30m`); the error is a usage error's line.
    public static func parse(_ text: String) -> Result<GapDuration, TimeOptionError> {
        let bad = TimeOptionError("--group-by gap=\(text): a duration is whole numbers with units s, m, h, d, "
                                  + "such as 90m, 3h, 2d or 1h30m")
        var total = 0, digits = 0, seen = false
        var number: Int? = nil
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                digits += 1
                guard digits <= 9 else { return .failure(bad) }
                number = (number ?? 0) * 10 + digit
            } else if let unit = units.first(where: { $0.letter == character }), let value = number {
                total += value * unit.seconds
                guard total <= maxSeconds else {
                    return .failure(TimeOptionError("--group-by gap=\(text): at most 10000 days"))
                }
                (number, digits, seen) = (nil, 0, true)
            } else {
                return .failure(bad)
            }
        }
        guard number == nil, seen else { return .failure(bad) }
        guard let duration = GapDuration(seconds: total) else {
            return .failure(TimeOptionError("--group-by gap=\(text): the pause must be at least one second"))
        }
        return .success(duration)
    }

    public var description: String {
        var rest = seconds
        var text = ""
        for unit in Self.units where rest >= unit.seconds {
            text += "\(rest / unit.seconds)\(unit.letter)"
            rest %= unit.seconds
        }
        return text
    }
}

/// Why `--sort` or `--group-by`'s value cannot be used: one line.
public struct TimeOptionError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
