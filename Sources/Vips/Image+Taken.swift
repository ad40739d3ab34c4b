internal import CVipsShim

extension Image {
    /// When the photo was taken, by its EXIF: DateTimeOriginal
    /// ("2026:08:14 15:30:12"), with SubSecTimeOriginal's milliseconds and
    /// OffsetTimeOriginal ("+02:00") when present; nil when absent, blank
    /// (as cameras without a clock write) or not a valid date and time.
    var takenAt: LocalDateTime? {
        guard let text = exifText("exif-ifd2-DateTimeOriginal") else { return nil }
        return ExifDateTime.parse(text, subSeconds: exifText("exif-ifd2-SubSecTimeOriginal"),
                                  offset: exifText("exif-ifd2-OffsetTimeOriginal"))
    }

    /// An EXIF field's value as libvips shows it, without the "(..., ASCII,
    /// 20 components, 20 bytes)" that follows.
    private func exifText(_ field: String) -> [UInt8]? {
        var raw: UnsafePointer<CChar>?
        guard vips_image_get_typeof(pointer, field) != 0,
              vips_image_get_string(pointer, field, &raw) == 0, let raw else { return nil }
        let bytes = Array(String(cString: raw).utf8.prefix(64))
        let end = bytes.firstIndex(of: UInt8(ascii: "(")) ?? bytes.count
        return Array(bytes[..<end])
    }
}

/// EXIF's date and time fields, parsed.
public enum ExifDateTime {
    /// "YYYY:MM:DD HH:MM:SS" (libexif may leave a space before what follows),
    /// "123" sub-seconds (fractions: "5" is half a second), "+02:00" offset.
    public static func parse(_ text: [UInt8], subSeconds: [UInt8]? = nil, offset: [UInt8]? = nil) -> LocalDateTime? {
        guard text.count >= 19 else { return nil }
        let colon = UInt8(ascii: ":")
        guard text[4] == colon, text[7] == colon, text[10] == UInt8(ascii: " "), text[13] == colon, text[16] == colon,
              text.count == 19 || text[19] == UInt8(ascii: " ") || text[19] == 0,
              let year = number(text[0..<4]), let month = number(text[5..<7]), let day = number(text[8..<10]),
              let hour = number(text[11..<13]), let minute = number(text[14..<16]), let second = number(text[17..<19])
        else { return nil }
        var milliseconds = 0
        if let digits = subSeconds.map({ $0.prefix { (48...57).contains($0) } }), !digits.isEmpty {
            let three = Array(digits.prefix(3)) + Array(repeating: UInt8(ascii: "0"), count: max(0, 3 - digits.count))
            milliseconds = number(three[...]) ?? 0
        }
        return LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                             millisecond: milliseconds, offsetMinutes: offset.flatMap(offsetMinutes))
    }

    /// "+02:00", "-05:30" (and "+0200"): minutes east of UTC.
    static func offsetMinutes(_ text: [UInt8]) -> Int? {
        let digits = text.filter { $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: " ") }
        guard digits.count == 5, digits[0] == UInt8(ascii: "+") || digits[0] == UInt8(ascii: "-"),
              let hours = number(digits[1..<3]), let minutes = number(digits[3..<5]), minutes < 60, hours <= 18
        else { return nil }
        return (digits[0] == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
    }

    static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 48) }
    }
}
