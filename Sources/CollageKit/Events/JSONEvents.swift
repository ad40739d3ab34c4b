import FoundationEssentials

/// The `--json` form of each event: one JSON object per line (NDJSON), keys
/// in a fixed order, `event` first. A path that is not valid UTF-8 is shown
/// with U+FFFD in its usual field and kept exactly, base64-encoded, in a
/// `_base64` field. Values are encoded by JSONEncoder; the object is put
/// together here, because a keyed container does not keep its keys' order.
public enum JSONEvents {
    /// The event's JSON object, on one line without its newline, for a run without `--shard`.
    public static func line(for event: PipelineEvent) -> String { line(for: event, shard: nil) }

    /// Whether `--json` prints the event: a file passed over is only counted
    /// (the summary's `passed_over`), and told by a notice at the end.
    public static func isPrinted(_ event: PipelineEvent) -> Bool {
        switch event {
        case .passedOver, .pickTold, .looked: return false  // `--pick`'s words and looks are for people: its events say it all
        default: return true
        }
    }

    /// `shard`: the run's `--shard`, which the summary names.
    public static func line(for event: PipelineEvent, shard: Shard?) -> String {
        var object = EventObject()
        object.add(event, shard: shard)
        return "{" + object.fields.joined(separator: ",") + "}"
    }
}

private struct EventObject {
    var fields: [String] = []

    /// The `picked` event's score, its keys in a fixed order, fractions to three places.
    static func score(_ score: PickedScore) -> String {
        func fraction(_ value: Double) -> String {
            let thousandths = Int((value * 1000).rounded())
            let digits = String(thousandths % 1000)
            return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - digits.count) + digits
        }
        var fields = ["\"sharpness\":" + fraction(score.sharpness), "\"exposure\":" + fraction(score.exposure),
                      "\"faces\":\(score.faces)"]
        if score.facesCut > 0 { fields.append("\"faces_cut\":\(score.facesCut)") }
        if let rating = score.rating { fields.append("\"rating\":\(rating)") }
        return "{" + fields.joined(separator: ",") + "}"
    }
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]  // paths read as paths
        return encoder
    }()

    private mutating func field<Value: Encodable>(_ key: String, _ value: Value) {
        // Strings, numbers and lists of them: encoding cannot fail.
        let name = String(decoding: try! encoder.encode(key), as: UTF8.self)
        fields.append(name + ":" + String(decoding: try! encoder.encode(value), as: UTF8.self))
    }

    mutating func add(_ event: PipelineEvent, shard: Shard?) {
        func add(_ key: String, _ value: String) { field(key, value) }
        func add(_ key: String, _ value: Int) { field(key, value) }
        func add(_ key: String, path: PathName) {
            add(key, path.description)
            if !path.isValidUTF8 { add(key + "_base64", Data(path.bytes).base64EncodedString()) }
        }
        func add(_ key: String, paths: [PathName]) {
            field(key, paths.map(\.description))
            if paths.contains(where: { !$0.isValidUTF8 }) {
                field(key + "_base64", paths.map { Data($0.bytes).base64EncodedString() })
            }
        }
        switch event {
        case .accepted(let path, let header):
            add("event", "accepted")
            add("path", path: path)
            add("width", header.displayedWidth)
            add("height", header.displayedHeight)
            add("orientation", header.orientation)
            add("format", header.format)
        case .rejected(let path, let reason, let detail):
            add("event", "rejected")
            add("path", path: path)
            add("reason", reason.rawValue)
            add("detail", detail)
        case .failed(let path, let error):
            add("event", "failed")
            add("path", path: path)
            add("error", error)
        case .paired(let path, let still):
            add("event", "paired")
            add("path", path: path)
            add("with", path: still)
        case .passedOver(let path, let kind):
            add("event", "passed_over")
            add("path", path: path)
            add("kind", kind.rawValue)
        case .placed(let path, let sheet, let index, let rect, let label, let origin):
            add("event", "placed")
            add("path", path: path)
            add("sheet", sheet)
            add("index", index)
            add("x", rect.x)
            add("y", rect.y)
            add("width", rect.width)
            add("height", rect.height)
            if let label { add("label", label) }
            if let focus = origin.focus { add("focus", focus) }
            if let source = origin.source { add("source", source) }
            // Seconds, to the millisecond.
            if let duration = origin.duration { field("duration", (duration * 1000).rounded() / 1000) }
            if let frame = origin.frame { field("frame", (frame * 1000).rounded() / 1000) }
        case .flagged(let flag):
            add("event", "flagged")
            add("path", path: flag.path)
            add("reason", flag.reason.rawValue)
            if let original = flag.of { add("of", path: original) }
        case .written(let sheet):
            add("event", "written")
            add("output", path: sheet.output)
            add("images", paths: sheet.images)
            add("width", sheet.width)
            add("height", sheet.height)
            add("sheet", sheet.sheet)
            if let page = sheet.page { add("page", page) }
            add("bytes", sheet.bytes)
            add("milliseconds", sheet.milliseconds)
            if let group = sheet.group { add("group", group) }
        case .planned(let sheet):
            add("event", "planned")
            add("output", path: sheet.output)
            add("images", paths: sheet.images)
            add("width", sheet.width)
            add("height", sheet.height)
            add("sheet", sheet.sheet)
            field("rects", sheet.rects.map { [$0.x, $0.y, $0.width, $0.height] })
            if let labels = sheet.labels { field("labels", labels) }
            if let group = sheet.group { add("group", group) }
        case .group(let name, let images):
            add("event", "group")
            add("group", name)
            add("images", images)
        case .unchanged(let output, let images):
            add("event", "unchanged")
            add("output", path: output)
            add("images", paths: images)
        case .picked(let picked):
            add("event", "picked")
            add("path", path: picked.path)
            add("moment", picked.moment)
            add("members", picked.members)
            fields.append("\"score\":" + Self.score(picked.score))
        case .stacked(let path, let into):
            add("event", "stacked")
            add("path", path: path)
            add("into", path: into)
        case .frame(let frame):
            add("event", "frame")
            add("path", path: frame.path)
            field("time", (frame.time * 1000).rounded() / 1000)
            add("output", path: frame.output)
            add("cell", frame.cell)
        case .compared(let pair):
            add("event", "compared")
            add("path", path: pair.path)
            add("baseline", path: pair.baseline)
            add("status", pair.status.rawValue)
            add("pixels", pair.pixels)
            field("percent", (pair.percent * 10_000).rounded() / 10_000)
            if let size = pair.size { add("size", size) }
            add("raw", pair.raw)
            if let group = pair.group { add("group", group) }
            if !pair.shifts.isEmpty {
                fields.append("\"shift\":[" + pair.shifts.map { shift in
                    "{\"y\":\(shift.y),\"height\":\(shift.height),\"dy\":\(shift.dy)"
                        + (shift.dx != 0 ? ",\"dx\":\(shift.dx)}" : "}")
                }.joined(separator: ",") + "]")
            }
        case .approved(let approved):
            add("event", "approved")
            add("path", path: approved.path)
            add("baseline", path: approved.baseline)
            add("status", approved.status.rawValue)
            if let alternative = approved.alternative { add("alternative", path: alternative) }
        case .document(let output, let pages):
            add("event", "document")
            add("output", path: output)
            add("pages", pages)
        case .pickTold(let message):
            add("event", "notice")
            add("message", message)
        case .looked(let path):
            add("event", "looked")
            add("path", path: path)
        case .notice(let message):
            add("event", "notice")
            add("message", message)
        case .finished(let outcome):
            add("event", "summary")
            add("written", outcome.summary.written)
            add("used", outcome.summary.used)
            add("rejected", outcome.summary.rejected)
            add("failed", outcome.summary.failed)
            add("unchanged", outcome.summary.unchanged)
            add("planned", outcome.summary.planned)
            if outcome.summary.flagged > 0 { add("flagged", outcome.summary.flagged) }
            add("paired", outcome.summary.paired)
            let passed = outcome.summary.passedOver
            fields.append("\"passed_over\":{" + PassedOverKind.allCases.map { "\"\($0.rawValue)\":\(passed[$0])" }
                .joined(separator: ",") + "}")
            let compared = outcome.summary.compared
            if compared.total > 0 {
                fields.append("\"compared\":{" + PairStatus.allCases.map { "\"\($0.rawValue)\":\(compared[$0])" }
                    .joined(separator: ",") + "}")
            }
            if let shard { add("shard", shard.description) }
            add("status", Int(outcome.status.rawValue))
            if let message = outcome.message { add("message", message) }
        }
    }
}
