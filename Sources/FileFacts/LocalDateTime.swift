import Glibc

/// A date and time as a clock showed it where a photo was taken: the
/// calendar fields, to the millisecond, and the clock's offset from UTC
/// when the file says it (EXIF OffsetTimeOriginal). Only valid calendar
/// dates of years 1800 to 9999 are made.
public struct LocalDateTime: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int
    public let millisecond: Int
    /// Minutes east of UTC, nil when unknown.
    public let offsetMinutes: Int?

    public static let years = 1800...9999

    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
                 millisecond: Int = 0, offsetMinutes: Int? = nil) {
        guard Self.years.contains(year), (1...12).contains(month),
              (1...Self.daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              (0...999).contains(millisecond), offsetMinutes.map({ (-18 * 60...18 * 60).contains($0) }) ?? true
        else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second, self.millisecond) = (hour, minute, second, millisecond)
        self.offsetMinutes = offsetMinutes
    }

    /// The local time of this machine's zone (TZ) at `seconds` since the epoch.
    public init?(epochSeconds seconds: Int, millisecond: Int = 0) {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return nil }
        self.init(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                  hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec),
                  millisecond: millisecond, offsetMinutes: Int(parts.tm_gmtoff) / 60)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to this date (proleptic Gregorian calendar).
    var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The clock's reading as if it were UTC, in milliseconds since the epoch.
    public var wallMilliseconds: Int64 {
        let seconds = Int64(daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return seconds * 1000 + Int64(millisecond)
    }

    /// The real moment, in milliseconds since the epoch: by the offset when
    /// known, else as this machine's zone (TZ) read that clock.
    public var instantMilliseconds: Int64 {
        if let offsetMinutes { return wallMilliseconds - Int64(offsetMinutes) * 60_000 }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(day))
        (parts.tm_hour, parts.tm_min, parts.tm_sec, parts.tm_isdst) = (Int32(hour), Int32(minute), Int32(second), -1)
        let seconds = mktime(&parts)
        // mktime fails only outside time_t's range, which these years are not in.
        return seconds == -1 && year != 1969 ? wallMilliseconds : Int64(seconds) * 1000 + Int64(millisecond)
    }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        lhs.instantMilliseconds < rhs.instantMilliseconds
    }

    /// "2026-08-14", "2026-08", "2026" and "2026-08-14T15.30" (dots: a
    /// colon is not welcome in every file system's names).
    public var dayName: String { "\(four(year))-\(two(month))-\(two(day))" }
    public var monthName: String { "\(four(year))-\(two(month))" }
    public var yearName: String { four(year) }
    public var minuteName: String { "\(dayName)T\(two(hour)).\(two(minute))" }

    /// ISO 8601: "2026-08-14T15:30:12.345+02:00" (no offset when unknown).
    public var description: String {
        var text = "\(dayName)T\(two(hour)):\(two(minute)):\(two(second))"
        if millisecond > 0 { text += "." + String(String(millisecond + 1000).dropFirst()) }
        if let offsetMinutes {
            let size = abs(offsetMinutes)
            text += (offsetMinutes < 0 ? "-" : "+") + "\(two(size / 60)):\(two(size % 60))"
        }
        return text
    }

    private func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private func four(_ value: Int) -> String { String(repeating: "0", count: max(0, 4 - String(value).count)) + String(value) }
}
