import FileFacts
import Vips

/// A date and time in a file's name, as cameras, phones and screenshot
/// tools write them:
///
///     IMG_20260814_153012.jpg            Android, Samsung (20260814_153012.jpg), VID_, PANO_
///     PXL_20260814_153012345.jpg         Pixel (milliseconds)
///     Screenshot_20260814-153012.png     Android screenshots
///     2026-08-14 15.30.12.jpg            Dropbox and OneDrive camera uploads
///     Screenshot 2026-08-14 at 15.30.12.png, Screen Shot 2026-08-14 at 3.30.12 PM.png   macOS
///     Screenshot from 2026-08-14 15-30-12.png                                           GNOME
///     Screenshot 2026-08-14 153012.png   Windows' Snipping Tool
///     WhatsApp Image 2026-08-14 at 15.30.12.jpeg, photo_2026-08-14_15-30-12.jpg (Telegram)
///     2026-08-14T15:30:12, 2026_08_14_15_30_12
///
/// That is: a year, month and day (`YYYYMMDD`, or with `-`, `_` or `.`
/// between them), then `_`, `-`, `T`, a space or ` at `, then the hour,
/// minute and second (`HHMMSS`, or with `.`, `-`, `:` or `_` between
/// them), optionally milliseconds (three digits after `HHMMSS`, or `.` and
/// one to three digits) and `AM`/`PM`; no digit just before or after. The
/// first such run from the left that is a valid date and time is taken; a
/// name that only looks like one (month 13, 25 o'clock) is not a date.
public enum NameDate {
    /// The date and time a file's name (its bytes) holds, in no time zone; nil when it holds none.
    public static func parse(_ name: [UInt8]) -> LocalDateTime? {
        var start = 0
        while start + 8 <= name.count {
            if isDigit(name[start]), start == 0 || !isDigit(name[start - 1]) {
                var scanner = Scanner(name, at: start)
                if let found = scanner.dateTime() { return found }
            }
            start += 1
        }
        return nil
    }

    static func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }

    private struct Scanner {
        let text: [UInt8]
        var index: Int

        init(_ text: [UInt8], at index: Int) { (self.text, self.index) = (text, index) }

        var current: UInt8? { index < text.count ? text[index] : nil }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        mutating func take(_ literal: String) -> Bool {
            let bytes = Array(literal.utf8)
            guard text.count - index >= bytes.count,
                  zip(text[index...], bytes).allSatisfy({ Self.lower($0.0) == $0.1 }) else { return false }
            index += bytes.count
            return true
        }

        static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte | 0x20 : byte }

        /// Exactly `count` digits (`range`: between so many).
        mutating func number(_ range: ClosedRange<Int>) -> Int? {
            var value = 0, count = 0
            while count < range.upperBound, let byte = current, NameDate.isDigit(byte) {
                value = value * 10 + Int(byte - 48)
                count += 1
                index += 1
            }
            return range.contains(count) ? value : nil
        }

        mutating func separator(_ allowed: String) -> UInt8? {
            guard let byte = current, allowed.utf8.contains(byte) else { return nil }
            index += 1
            return byte
        }

        mutating func dateTime() -> LocalDateTime? {
            guard let year = number(4...4) else { return nil }
            let dateSeparator = separator("-_.")
            guard let month = number(2...2) else { return nil }
            if let dateSeparator, !take(dateSeparator) { return nil }
            guard let day = number(2...2), let byte = current, !NameDate.isDigit(byte) else { return nil }
            let twelveHour = take(" at ") || take("_at_")
            if !twelveHour, separator("_- T") == nil { return nil }
            guard let first = current, NameDate.isDigit(first) else { return nil }
            var hour: Int, minute: Int, second: Int, millisecond = 0
            if let compact = compactTime() {
                (hour, minute, second, millisecond) = compact
            } else {
                guard let h = number(twelveHour ? 1...2 : 2...2), let timeSeparator = separator(".-:_"),
                      let m = number(2...2), take(timeSeparator), let s = number(2...2) else { return nil }
                (hour, minute, second) = (h, m, s)
                let mark = index
                if take(UInt8(ascii: ".")), let fraction = fraction() { millisecond = fraction } else { index = mark }
            }
            if let byte = current, NameDate.isDigit(byte) { return nil }
            if let meridiem = meridiem() {
                guard (1...12).contains(hour) else { return nil }
                hour = hour % 12 + (meridiem ? 12 : 0)
            }
            return LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                 millisecond: millisecond)
        }

        /// `HHMMSS`, or `HHMMSSmmm`; nil (and nothing taken) otherwise.
        mutating func compactTime() -> (Int, Int, Int, Int)? {
            let mark = index
            guard let digits = number(6...9), [6, 9].contains(index - mark) else { index = mark; return nil }
            let whole = index - mark == 9 ? digits / 1000 : digits
            return (whole / 10_000, whole / 100 % 100, whole % 100, index - mark == 9 ? digits % 1000 : 0)
        }

        /// One to three digits of a second, as milliseconds.
        mutating func fraction() -> Int? {
            let mark = index
            guard let value = number(1...3) else { return nil }
            if let byte = current, NameDate.isDigit(byte) { return nil }
            return value * [100, 10, 1][index - mark - 1]
        }

        /// `AM` or `PM` (after nothing, a space or a narrow no-break space,
        /// as macOS writes): whether afternoon; nil when there is none.
        mutating func meridiem() -> Bool? {
            let mark = index
            _ = take(" ") || take("\u{202F}")
            for (word, afternoon) in [("am", false), ("pm", true)] where take(word) {
                if let byte = current, (65...90).contains(byte) || (97...122).contains(byte) { break }
                return afternoon
            }
            index = mark
            return nil
        }
    }
}
