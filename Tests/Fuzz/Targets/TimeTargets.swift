import CollageKit
import FileFacts
import Vips

/// The parsers of `--sort taken` and `--group-by`: dates in file names and
/// the durations of `gap=`.
enum TimeTargets {
    static let all = [nameDate, duration]

    /// A date found in a name is a valid calendar date and time, and written
    /// back as a camera would name the file, it parses to the same.
    static let nameDate = FuzzTarget("name-date", maxLength: 512) { bytes in
        guard let date = NameDate.parse(bytes) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard LocalDateTime(year: date.year, month: date.month, day: date.day, hour: date.hour, minute: date.minute,
                            second: date.second, millisecond: date.millisecond) == date,
              date.day <= LocalDateTime.daysIn(month: date.month, year: date.year) else {
            return "'\(text)' gives \(date), not a valid date and time"
        }
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        let written = "PXL_" + digits(date.year, 4) + digits(date.month, 2) + digits(date.day, 2) + "_"
            + digits(date.hour, 2) + digits(date.minute, 2) + digits(date.second, 2) + digits(date.millisecond, 3) + ".jpg"
        return first(date.offsetMinutes == nil ? nil : "'\(text)': a name has no offset, yet \(date)",
                     NameDate.parse(Array(written.utf8)) == date ? nil : "'\(text)' gives \(date), written as '\(written)' it does not",
                     NameDate.parse(Array(("x" + written).utf8)) == date ? nil : "'\(written)' after a letter is another date")
    }

    /// A duration that parses is one second to 10000 days, and written back
    /// largest unit first it parses to the same, written the same.
    static let duration = FuzzTarget("duration", maxLength: 64) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        guard case .success(let duration) = GapDuration.parse(text) else { return nil }
        guard (1...GapDuration.maxSeconds).contains(duration.seconds) else {
            return "gap=\(text) is \(duration.seconds) s, outside 1 s to 10000 days"
        }
        guard case .success(let again) = GapDuration.parse(duration.description) else {
            return "gap=\(text) is written \(duration), which does not parse"
        }
        var grouped = false
        if case .success(.gap(let gap)) = GroupBy.parse("gap=" + text) { grouped = gap == duration }
        return first(again == duration ? nil : "gap=\(text) is written \(duration), which parses to \(again)",
                     again.description == duration.description ? nil : "\(duration) is written \(again)",
                     grouped ? nil : "--group-by gap=\(text) is not \(duration)")
    }
}
