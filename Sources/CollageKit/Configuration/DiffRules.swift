import Vips

/// `--rules FILE`: `--diff`'s options per path, one rule a line:
///
///     GLOB [threshold=T] [tolerance=N|N%] [ignore=X,Y,W,H]... [allow=STATUS,...]
///
/// GLOB is matched on the pair's path below the roots as `--exclude`
/// matches (`*`, `?`, `[a-z]`, `**`); the first line that matches wins;
/// what it gives replaces the option's value (the command line's is the
/// default), `allow` takes statuses out of `--fail-on` for the paths it
/// matches. Blank lines and `#` to the end of a line are comments.
public struct DiffRule: Sendable {
    /// The paths it is for.
    public let pattern: ExcludePattern
    /// `threshold=T`.
    public var threshold: Double?
    /// `tolerance=N|N%`.
    public var tolerance: Tolerance?
    /// `ignore=X,Y,W,H`, each given (none: the command line's).
    public var ignore: [PixelRect] = []
    /// `allow=STATUS,...`: statuses that do not fail for these paths.
    public var allow: Set<PairStatus> = []

    /// The rules of a file's bytes; a line that is not one throws its
    /// number and what is wrong with it.
    public static func rules(fromFile bytes: [UInt8]) throws(DiffRuleError) -> [DiffRule] {
        var rules: [DiffRule] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let words = line.split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 })
            let kept = words.prefix { $0.first != UInt8(ascii: "#") }
            guard let glob = kept.first else { continue }
            do {
                rules.append(try rule(Array(glob), kept.dropFirst().map { String(decoding: $0, as: UTF8.self) }))
            } catch {
                throw DiffRuleError(line: index + 1, message: error.message)
            }
        }
        return rules
    }

    private static func rule(_ glob: [UInt8], _ words: [String]) throws(DiffRuleError) -> DiffRule {
        let pattern: ExcludePattern
        do { pattern = try ExcludePattern(glob) } catch { throw DiffRuleError(line: 0, message: "'\(String(decoding: glob, as: UTF8.self))': \(error)") }
        var rule = DiffRule(pattern: pattern)
        for word in words {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            let (key, value) = (parts[0], parts.count > 1 ? parts[1] : "")
            func bad(_ expected: String) -> DiffRuleError { DiffRuleError(line: 0, message: "\(key)= takes \(expected), not '\(value)'") }
            switch key {
            case "threshold":
                guard let number = Double(value), (0...1).contains(number) else { throw bad("a distance from 0 to 1") }
                rule.threshold = number
            case "tolerance":
                guard let tolerance = Tolerance(value) else { throw bad("a number of pixels (12) or a percentage (0.5%)") }
                rule.tolerance = tolerance
            case "ignore":
                let numbers = value.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                guard numbers.count == 4, let x = numbers[0], let y = numbers[1], let w = numbers[2], let h = numbers[3],
                      x >= 0, y >= 0, w > 0, h > 0 else { throw bad("X,Y,W,H in pixels") }
                rule.ignore.append(PixelRect(x: x, y: y, width: w, height: h))
            case "allow":
                for name in value.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let status = PairStatus(rawValue: String(name)), status != .unchanged else {
                        throw bad("statuses among " + PairStatus.allCases.filter { $0 != .unchanged }.map(\.rawValue)
                            .joined(separator: ","))
                    }
                    rule.allow.insert(status)
                }
            default:
                throw DiffRuleError(line: 0, message: "'\(word)' is not one of threshold=, tolerance=, ignore=, allow=")
            }
        }
        return rule
    }
}

/// A line of a `--rules` file that is not a rule.
public struct DiffRuleError: Error, Sendable {
    /// Its number, from 1.
    public let line: Int
    /// What is wrong with it.
    public let message: String
}

extension DiffSettings {
    /// The settings for the pair named `relative`: the first rule that
    /// matches it applied over these.
    func applying(to relative: PathName) -> DiffSettings {
        guard let rule = rules.first(where: { $0.pattern.matches(relative.bytes[...], folder: false) }) else { return self }
        var settings = self
        if let threshold = rule.threshold { settings.threshold = threshold }
        if let tolerance = rule.tolerance { settings.tolerance = tolerance }
        if !rule.ignore.isEmpty { settings.difference.ignore = rule.ignore }
        settings.failOn.subtract(rule.allow)
        return settings
    }
}
