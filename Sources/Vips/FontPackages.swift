/// The Debian packages whose fonts draw what no installed font has: the
/// advice a caption with missing glyphs gets.
public enum FontPackages {
    /// By kind of character, the packages that have its glyphs, the one
    /// collage's package asks for first, each with a family it installs
    /// (how to tell that it is installed).
    static let emoji = [(package: "fonts-noto-color-emoji", family: "Noto Color Emoji"),
                        (package: "fonts-symbola", family: "Symbola")]
    static let cjk = [(package: "fonts-wqy-microhei", family: "WenQuanYi Micro Hei"),
                      (package: "fonts-noto-cjk", family: "Noto Sans CJK JP")]
    static let other = [(package: "fonts-noto-core", family: "Noto Sans"),
                        (package: "fonts-unifont", family: "Unifont")]

    /// The package to install for `scalar`: the first of its kind that is
    /// not installed (the last when all are).
    public static func package(for scalar: Unicode.Scalar) -> String {
        let candidates = isEmoji(scalar) ? emoji : isCJK(scalar) ? cjk : other
        let missing = candidates.first { (try? TextRenderer.resolveFont($0.family).get()) == nil }
        return (missing ?? candidates.last!).package
    }

    /// "न (U+0928), म (U+092E): install fonts-noto-core".
    public static func advice(for missing: [Unicode.Scalar]) -> String {
        var seen = Set<Unicode.Scalar>(), characters: [String] = [], packages: [String] = []
        for scalar in missing where seen.insert(scalar).inserted {
            if characters.count < 5 { characters.append("\(scalar) (\(code(scalar)))") }
            let package = package(for: scalar)
            if !packages.contains(package) { packages.append(package) }
        }
        let more = seen.count > characters.count ? " and \(seen.count - characters.count) more" : ""
        return characters.joined(separator: ", ") + more + ": install " + packages.joined(separator: " and ")
    }

    /// "U+0928".
    static func code(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return properties.isEmojiPresentation || properties.isEmojiModifier || (0x1F000...0x1FAFF).contains(scalar.value)
            || scalar.value == 0xFE0F || scalar.value == 0x20E3 || (properties.isEmoji && scalar.value >= 0x2000)
    }

    /// Han, kana, Hangul, bopomofo and their symbols and full-width forms.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        let ranges: [ClosedRange<UInt32>] = [0x1100...0x11FF, 0x2E80...0x2FDF, 0x3000...0x4DBF, 0x4E00...0x9FFF,
                                             0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF, 0xFE30...0xFE4F,
                                             0xFF00...0xFFEF, 0x20000...0x3FFFF]
        return ranges.contains { $0.contains(scalar.value) }
    }
}
