import CollageKit
import Dispatch
import Locking

/// The one live line at the bottom of a terminal. Log lines are written
/// "around" it (cleared, written, redrawn) so the two never interleave.
public final class ProgressLine: Sendable {
    /// The line on standard error, which every reporter of the process shares.
    public static let shared = ProgressLine(stream: .error)

    private let stream: StandardStream
    private let shown = Locked<String?>(nil)

    init(stream: StandardStream) { self.stream = stream }

    /// Replaces the line with `text` (no newline).
    public func show(_ text: String) {
        shown.withLock { shown in
            stream.write(bytes: Array(("\r\u{1B}[K" + text).utf8))
            shown = text
        }
    }

    /// Erases the line, if one is shown.
    public func clear() {
        shown.withLock { shown in
            if shown != nil { stream.write(bytes: Array("\r\u{1B}[K".utf8)) }
            shown = nil
        }
    }

    /// Runs `write` with the line cleared, then redraws it.
    public func around(_ write: () -> Void) {
        shown.withLock { shown in
            if shown != nil { stream.write(bytes: Array("\r\u{1B}[K".utf8)) }
            write()
            if let shown { stream.write(bytes: Array(shown.utf8)) }
        }
    }
}

/// The progress line on a terminal: images scanned, used, rejected, failed,
/// sheets written, the rate, and an estimate when the total is known.
/// Redrawn at most ten times a second, cleared at the end.
public final class ProgressReporter {
    private let line: ProgressLine
    private let total: Int?
    private let started = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var scanned = 0, used = 0, rejected = 0, failed = 0, sheets = 0, decoded = 0
    /// `--pick`: photos looked at (after every header is read, before the first sheet).
    private var looked = 0

    /// `total`: how many inputs there are, when known (only explicit files).
    public init(line: ProgressLine = .shared, total: Int? = nil) {
        self.line = line
        self.total = total
    }

    /// Counts `event` and redraws the line if a tenth of a second has passed; clears it on `finished`.
    public func handle(_ event: PipelineEvent) {
        switch event {
        case .accepted: scanned += 1
        case .rejected: scanned += 1; rejected += 1
        case .failed: failed += 1
        case .placed: decoded += 1
        case .written(let sheet): sheets += 1; used += sheet.images.count
        case .unchanged(_, let images): sheets += 1; used += images.count
        case .planned(let sheet): sheets += 1; used += sheet.images.count
        case .compared: scanned += 1
        case .looked: looked += 1
        case .notice, .flagged, .paired, .passedOver, .document, .group, .frame, .approved, .picked, .stacked, .pickTold: break
        case .finished:
            // The throttle may have skipped the last counts: draw them once
            // before clearing, so the final tally is what was shown last.
            line.show(text(now: DispatchTime.now().uptimeNanoseconds))
            line.clear()
            return
        }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDraw >= 100_000_000 else { return }
        lastDraw = now
        line.show(text(now: now))
    }

    func text(now: UInt64) -> String {
        let seconds = Double(now - started) / 1e9
        var parts = ["\(scanned) scanned", "\(used) used", "\(rejected) rejected", "\(failed) failed",
                     "\(sheets) \(sheets == 1 ? "sheet" : "sheets")"]
        if looked > 0 { parts.insert("\(looked) looked at", at: 1) }
        if seconds >= 0.5 {
            let rate = Double(scanned) / seconds
            parts.append(rate >= 10 ? "\(Int(rate)) img/s" : "\(Int(rate * 10) / 10).\(Int(rate * 10) % 10) img/s")
            if let total, rate > 0, scanned < total {
                let left = Int(Double(total - scanned) / rate)
                parts.append("about \(left / 60):" + (left % 60 < 10 ? "0" : "") + "\(left % 60) left")
            }
        }
        return "collage: " + parts.joined(separator: ", ")
    }
}
