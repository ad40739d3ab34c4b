internal import CVipsShim

/// A font description that names a family that is not installed, or that
/// cannot be read.
public struct FontError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

extension TextRenderer {
    /// Which installed family fontconfig uses for `description`'s family (a
    /// Pango font description: "DejaVu Sans 14", "Sans Bold 11"). Generic
    /// families (sans, serif, monospace, ...) and a description without a
    /// family are whatever fontconfig picks; a named family that is not
    /// installed is an error naming the family that would be used instead.
    public static func resolveFont(_ description: String) -> Result<String, FontError> {
        guard let (requested, _) = parse(description) else {
            return .failure(FontError(description: "cannot read the font description '\(description)'"))
        }
        var matched = [CChar](repeating: 0, count: 512)
        guard (try? Vips.start()) != nil,
              pango.withLock({ cvips_font_match(requested, &matched, Int32(matched.count)) }) == 0
        else { return .failure(FontError(description: "fontconfig finds no font at all for '\(description)'")) }
        let used = string(matched)
        if genericFamilies.contains(requested.lowercased()) || requested.lowercased() == used.lowercased() {
            return .success(used)
        }
        return .failure(FontError(description: "font '\(requested)' is not installed (fontconfig would use '\(used)'); "
                                  + "fc-list lists those that are"))
    }

    /// The size `description` gives, in points (pixels at the 72 dpi text
    /// is drawn at; "12px" is 12 too), nil when it gives none.
    public static func size(of description: String) -> Int? {
        guard let (_, size) = parse(description), size > 0 else { return nil }
        return size
    }

    /// fontconfig's aliases: they name no font, so any match is right.
    static let genericFamilies: Set<String> = [
        "", "sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy", "emoji", "math",
    ]

    /// The first family (lower case not applied) and the size (0: none) of a description.
    private static func parse(_ description: String) -> (family: String, size: Int)? {
        var family = [CChar](repeating: 0, count: 512)
        var size: Int32 = 0
        // Pango alone (no font map), but Pango all the same: under the lock.
        let status = pango.withLock { cvips_font_describe(description, &family, Int32(family.count), &size) }
        guard status == 0 else { return nil }
        return (string(family), Int(size))
    }

    private static func string(_ bytes: [CChar]) -> String {
        String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
