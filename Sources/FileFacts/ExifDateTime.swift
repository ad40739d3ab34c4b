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
