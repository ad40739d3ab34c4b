/// What a photo says of the camera that took it and how (EXIF, or a RAW
/// photo's own), and how a proof sheet's caption says it: `{camera}`
/// `{lens}` `{focal}` `{aperture}` `{shutter}` `{iso}`. Each is nil (its
/// text empty) where the photo does not say, or says nonsense.
public struct CameraFacts: Sendable, Equatable {
    /// EXIF Make ("Canon", "NIKON CORPORATION") and Model ("Canon EOS R6"), trimmed.
    public var make: String?
    public var model: String?
    /// EXIF LensModel, trimmed.
    public var lens: String?
    /// Focal length in millimetres.
    public var focalLength: Double?
    /// The f-number (2.8 for f/2.8).
    public var aperture: Double?
    /// Exposure time in seconds.
    public var exposure: Double?
    /// ISO speed.
    public var iso: Int?

    public init(make: String? = nil, model: String? = nil, lens: String? = nil, focalLength: Double? = nil,
                aperture: Double? = nil, exposure: Double? = nil, iso: Int? = nil) {
        self.make = Self.text(make)
        self.model = Self.text(model)
        self.lens = Self.text(lens)
        self.focalLength = focalLength.flatMap { $0 > 0 && $0 < 100_000 ? $0 : nil }
        self.aperture = aperture.flatMap { $0 > 0 && $0 < 10_000 ? $0 : nil }
        self.exposure = exposure.flatMap { $0 >= 1e-6 && $0 < 1_000_000 ? $0 : nil }
        self.iso = iso.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Whether the photo said nothing of it.
    public var isEmpty: Bool { self == CameraFacts() }

    /// Make and model, without the make said twice: "Canon EOS R6" (Make
    /// "Canon"), "NIKON D850" (Make "NIKON CORPORATION"), "Apple iPhone 15
    /// Pro" (Make "Apple"). A company's words (CORPORATION, Co., Ltd.,
    /// IMAGING ...) are left out of a make said before its model.
    public var cameraText: String {
        guard let model else { return make ?? "" }
        guard let make else { return model }
        let makeWords = make.split(whereSeparator: { $0 == " " || $0 == "," }).map { $0.lowercased() }
        let modelFirst = model.split(separator: " ").first.map { $0.lowercased() } ?? ""
        if makeWords.contains(modelFirst) { return model }
        let company: Set = ["corporation", "corp.", "corp", "company", "co.", "co", "ltd.", "ltd", "inc.", "inc",
                            "imaging", "optical", "electric", "gmbh", "ag", "ab"]
        let brand = make.split(whereSeparator: { $0 == " " || $0 == "," })
            .filter { !company.contains($0.lowercased()) }.joined(separator: " ")
        return brand.isEmpty ? model : brand + " " + model
    }

    /// "24-70mm F2.8": the lens as the photo names it.
    public var lensText: String { lens ?? "" }

    /// "35 mm", "6.9 mm".
    public var focalText: String { focalLength.map { Self.decimal($0) + " mm" } ?? "" }

    /// "f/2.8", "f/8", "f/1.8" (for 1.78).
    public var apertureText: String { aperture.map { "f/" + Self.decimal($0) } ?? "" }

    /// "1/250 s" under a second (its reciprocal, as cameras show it:
    /// "1/2 s", "1/2.5 s"), "2 s", "1.3 s", "30 s" from a second up.
    public var shutterText: String {
        guard let exposure else { return "" }
        if exposure >= 1 || (1 / exposure).rounded() <= 1 { return Self.decimal(exposure) + " s" }
        return "1/" + Self.decimal(1 / exposure) + " s"
    }

    /// "ISO 400".
    public var isoText: String { iso.map { "ISO \($0)" } ?? "" }

    /// `value` with one decimal where it has one ("2.8", "1.3"), else whole
    /// ("35", "250"): as cameras and ExifTool say them.
    static func decimal(_ value: Double) -> String {
        guard value.isFinite, value >= 0, value < 1e12 else { return "" }
        let tenths = (value * 10).rounded()
        let whole = Int(tenths) / 10, fraction = Int(tenths) % 10
        return fraction == 0 ? String(whole) : "\(whole).\(fraction)"
    }

    /// `text` trimmed of spaces and NULs; nil when nothing is left.
    static func text(_ text: String?) -> String? {
        guard let text else { return nil }
        let kept = text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
        let trimmed = String(String.UnicodeScalarView(kept)).split(separator: " ", omittingEmptySubsequences: true)
            .joined(separator: " ")
        return trimmed.isEmpty ? nil : String(trimmed.prefix(128))
    }

    /// An EXIF number as libvips shows it, "35/1 (35.0 mm, Rational, 1
    /// components, 8 bytes)" or "400 (400, Short, 1 components, 2 bytes)":
    /// the value before the description (the rational's quotient), not the
    /// description's prose. nil for a zero denominator, or no number.
    public static func number(exif text: String) -> Double? {
        guard let first = text.split(separator: " ").first else { return nil }
        let parts = first.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return Double(parts[0]).flatMap { $0.isFinite ? $0 : nil }
        case 2:
            guard let numerator = Double(parts[0]), let denominator = Double(parts[1]), denominator != 0 else { return nil }
            let value = numerator / denominator
            return value.isFinite ? value : nil
        default: return nil
        }
    }

    /// An EXIF text as libvips shows it, "Canon EOS R6 (Canon EOS R6,
    /// ASCII, 13 components, 13 bytes)": the value, once.
    public static func string(exif text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        for index in scalars.indices.dropLast() where scalars[index] == " " && scalars[index + 1] == "(" {
            let value = scalars[..<index], rest = scalars[(index + 2)...]
            if rest.starts(with: Array(value) + [",", " "]) {
                return String(String.UnicodeScalarView(value))
            }
        }
        return text
    }
}
