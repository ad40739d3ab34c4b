import Vips

extension ComparedPair {
    /// Its share of differing pixels as people read it: "0.01%", "<0.0001%".
    public var percentText: String { DiffText.percent(percent) }
}

/// The words of `--diff`'s numbers, shared by captions, lines and reports.
enum DiffText {
    /// "changed: 12 pixels differ (0.01%), size 10x10 -> 10x12, shift y 40 +2 px".
    static func describe(_ pair: ComparedPair) -> String {
        var message = "\(pair.status.rawValue): \(pair.pixels) pixels differ (\(percent(pair.percent)))"
        if let size = pair.size { message += ", size \(size)" }
        if !pair.shifts.isEmpty { message += ", " + shifts(pair.shifts) }
        return message
    }

    /// The bands that moved, in a line a person reads (review page rows,
    /// Markdown, captions, JUnit messages; events keep every band): bands
    /// next to each other that moved the same way by amounts at most two
    /// pixels apart are one ("rows 276-324 moved up 38-39 px"); the three
    /// tallest are named, in the order of the page, and the rest summed
    /// ("and 23 more bands, up 36-215 px").
    static func shifts(_ shifts: [Shift]) -> String {
        let bands = ShiftBand.merged(shifts)
        let named = bands.indices.sorted { bands[$0].rows > bands[$1].rows || (bands[$0].rows == bands[$1].rows && $0 < $1) }
            .prefix(3).sorted()
        var parts = named.map { index in
            let band = bands[index]
            return "rows \(band.first)-\(band.last) moved " + band.moves.joined(separator: " and ")
        }
        let rest = bands.indices.filter { !named.contains($0) }.map { bands[$0] }
        if !rest.isEmpty {
            parts.append("and \(rest.count) more band\(rest.count == 1 ? "" : "s"), " + ShiftBand.summed(rest).joined(separator: ", "))
        }
        return parts.joined(separator: "; ")
    }

    /// "0.05%", "12.5%", "100%": at most four significant decimals, never "0%" for a change.
    static func percent(_ value: Double) -> String {
        if value > 0 && value < 0.0001 { return "<0.0001%" }
        var text = String((value * 10_000).rounded() / 10_000)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text + "%"
    }
}

/// Bands that moved, merged for a person to read (`DiffText.shifts`).
struct ShiftBand: Equatable {
    /// The first and last rows in the baseline.
    var first: Int, last: Int
    /// The smallest and largest move each way.
    var dy: ClosedRange<Int>, dx: ClosedRange<Int>

    init(_ shift: Shift) {
        (first, last) = (shift.y, shift.y + max(1, shift.height) - 1)
        (dy, dx) = (shift.dy...shift.dy, shift.dx...shift.dx)
    }

    var rows: Int { last - first + 1 }

    /// Bands next to each other (in the baseline's order) merged while
    /// their moves, each way, stay on one side of zero and within two
    /// pixels of each other.
    static func merged(_ shifts: [Shift]) -> [ShiftBand] {
        var bands: [ShiftBand] = []
        for shift in shifts.sorted(by: { $0.y < $1.y }) {
            let band = ShiftBand(shift)
            if var last = bands.last, let dy = close(last.dy, band.dy), let dx = close(last.dx, band.dx) {
                (last.last, last.dy, last.dx) = (max(last.last, band.last), dy, dx)
                bands[bands.count - 1] = last
            } else {
                bands.append(band)
            }
        }
        return bands
    }

    /// The two ranges of moves as one, when they are the same way and at most two pixels apart.
    private static func close(_ a: ClosedRange<Int>, _ b: ClosedRange<Int>) -> ClosedRange<Int>? {
        let joined = min(a.lowerBound, b.lowerBound)...max(a.upperBound, b.upperBound)
        guard joined.upperBound - joined.lowerBound <= 2, joined.lowerBound.signum() == joined.upperBound.signum()
        else { return nil }
        return joined
    }

    /// "up 38-39 px", "right 3 px": each way it moved.
    var moves: [String] {
        Self.words(dy, negative: "up", positive: "down") + Self.words(dx, negative: "left", positive: "right")
    }

    /// The moves of many bands, each way: "up 36-215 px", "down 2 px".
    static func summed(_ bands: [ShiftBand]) -> [String] {
        func span(_ ranges: [ClosedRange<Int>], _ sign: Int) -> ClosedRange<Int>? {
            let moves = ranges.flatMap { [$0.lowerBound, $0.upperBound] }.filter { $0.signum() == sign }.map(abs)
            guard let low = moves.min(), let high = moves.max() else { return nil }
            return low...high
        }
        var words: [String] = []
        for (ranges, names) in [(bands.map(\.dy), ("up", "down")), (bands.map(\.dx), ("left", "right"))] {
            if let up = span(ranges, -1) { words.append(names.0 + " " + amount(up)) }
            if let down = span(ranges, 1) { words.append(names.1 + " " + amount(down)) }
        }
        return words
    }

    private static func words(_ range: ClosedRange<Int>, negative: String, positive: String) -> [String] {
        guard range != 0...0 else { return [] }
        let size = range.lowerBound < 0 ? -range.upperBound...(-range.lowerBound) : range
        return [(range.lowerBound < 0 ? negative : positive) + " " + amount(size)]
    }

    /// "2 px", "36-215 px".
    private static func amount(_ range: ClosedRange<Int>) -> String {
        range.lowerBound == range.upperBound ? "\(range.lowerBound) px" : "\(range.lowerBound)-\(range.upperBound) px"
    }
}
