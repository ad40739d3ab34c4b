import Vips

/// Parsing of option values shared by the command line and tests.
public enum OptionValues {
    /// "1200x800" (also "1200X800") to a width and height, each 1...65500.
    public static func size(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...65_500).contains(width), (1...65_500).contains(height) else { return nil }
        return (width, height)
    }

    /// "4x3", "4x" or "x3": fixed columns and/or rows, each at least 1.
    public static func tile(_ text: String) -> (columns: Int?, rows: Int?)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, !(parts[0].isEmpty && parts[1].isEmpty) else { return nil }
        func side(_ part: Substring) -> Int?? {
            if part.isEmpty { return .some(nil) }
            guard part.allSatisfy(\.isASCII), let value = Int(part), (1...10_000).contains(value) else { return nil }
            return .some(value)
        }
        guard let columns = side(parts[0]), let rows = side(parts[1]) else { return nil }
        return (columns, rows)
    }

    /// `--crop`: centre (or center), attention, entropy.
    public static func crop(_ text: String) -> CropMode? {
        text == "center" ? .centre : CropMode(rawValue: text)
    }

    /// A colour: a name (white, black, grey/gray, red, green, blue, yellow,
    /// cyan, magenta), "#rgb", "#rrggbb", or "r,g,b" with each 0-255.
    public static func colour(_ text: String) -> RGB? {
        let named: [String: RGB] = [
            "white": .white, "black": .black,
            "grey": RGB(red: 128, green: 128, blue: 128), "gray": RGB(red: 128, green: 128, blue: 128),
            "red": RGB(red: 255, green: 0, blue: 0), "green": RGB(red: 0, green: 128, blue: 0),
            "blue": RGB(red: 0, green: 0, blue: 255), "yellow": RGB(red: 255, green: 255, blue: 0),
            "cyan": RGB(red: 0, green: 255, blue: 255), "magenta": RGB(red: 255, green: 0, blue: 255),
        ]
        let lowered = text.lowercased()
        if let colour = named[lowered] { return colour }
        if lowered.hasPrefix("#") {
            var hex = String(lowered.dropFirst())
            if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
            guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
            return RGB(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
        }
        let parts = lowered.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let values = parts.compactMap { UInt8($0.trimmingSpaces) }
        guard values.count == 3 else { return nil }
        return RGB(red: values[0], green: values[1], blue: values[2])
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        drop { $0 == " " }.reversed().drop { $0 == " " }.reversed().reduce(into: Substring()) { $0.append($1) }
    }
}
