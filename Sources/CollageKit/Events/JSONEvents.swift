import FoundationEssentials

/// The `--json` form of each event: one JSON object per line (NDJSON), keys
/// in a fixed order, `event` first. A path that is not valid UTF-8 is shown
/// with U+FFFD in its usual field and kept exactly, base64-encoded, in a
/// `_base64` field.
public enum JSONEvents {
    public static func line(for event: PipelineEvent) -> String { line(for: event, shard: nil) }

    /// `shard`: the run's `--shard`, which the summary names.
    public static func line(for event: PipelineEvent, shard: Shard?) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]  // paths read as paths
        // Every field is a string, a number or a list of strings: encoding cannot fail.
        return String(decoding: try! encoder.encode(EventRecord(event, shard: shard)), as: UTF8.self)
    }
}

/// One event's fields, encoded in the order they are written here.
private struct EventRecord: Encodable {
    let event: PipelineEvent
    let shard: Shard?

    init(_ event: PipelineEvent, shard: Shard?) {
        self.event = event
        self.shard = shard
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: Encoder) throws {
        var object = encoder.container(keyedBy: Key.self)
        func add(_ key: String, _ value: String) throws { try object.encode(value, forKey: Key(key)) }
        func add(_ key: String, _ value: Int) throws { try object.encode(value, forKey: Key(key)) }
        func add(_ key: String, path: PathName) throws {
            try add(key, path.description)
            if !path.isValidUTF8 { try add(key + "_base64", Data(path.bytes).base64EncodedString()) }
        }
        func add(_ key: String, paths: [PathName]) throws {
            try object.encode(paths.map(\.description), forKey: Key(key))
            if paths.contains(where: { !$0.isValidUTF8 }) {
                try object.encode(paths.map { Data($0.bytes).base64EncodedString() }, forKey: Key(key + "_base64"))
            }
        }
        switch event {
        case .accepted(let path, let header):
            try add("event", "accepted")
            try add("path", path: path)
            try add("width", header.displayedWidth)
            try add("height", header.displayedHeight)
            try add("orientation", header.orientation)
            try add("format", header.format)
        case .rejected(let path, let reason, let detail):
            try add("event", "rejected")
            try add("path", path: path)
            try add("reason", reason.rawValue)
            try add("detail", detail)
        case .failed(let path, let error):
            try add("event", "failed")
            try add("path", path: path)
            try add("error", error)
        case .placed(let path, let sheet, let index, let rect, let label):
            try add("event", "placed")
            try add("path", path: path)
            try add("sheet", sheet)
            try add("index", index)
            try add("x", rect.x)
            try add("y", rect.y)
            try add("width", rect.width)
            try add("height", rect.height)
            if let label { try add("label", label) }
        case .written(let sheet):
            try add("event", "written")
            try add("output", path: sheet.output)
            try add("images", paths: sheet.images)
            try add("width", sheet.width)
            try add("height", sheet.height)
            try add("sheet", sheet.sheet)
            try add("bytes", sheet.bytes)
            try add("milliseconds", sheet.milliseconds)
        case .planned(let sheet):
            try add("event", "planned")
            try add("output", path: sheet.output)
            try add("images", paths: sheet.images)
            try add("width", sheet.width)
            try add("height", sheet.height)
            try add("sheet", sheet.sheet)
            try object.encode(sheet.rects.map { [$0.x, $0.y, $0.width, $0.height] }, forKey: Key("rects"))
            if let labels = sheet.labels { try object.encode(labels, forKey: Key("labels")) }
        case .unchanged(let output, let images):
            try add("event", "unchanged")
            try add("output", path: output)
            try add("images", paths: images)
        case .notice(let message):
            try add("event", "notice")
            try add("message", message)
        case .finished(let outcome):
            try add("event", "summary")
            try add("written", outcome.summary.written)
            try add("used", outcome.summary.used)
            try add("rejected", outcome.summary.rejected)
            try add("failed", outcome.summary.failed)
            try add("unchanged", outcome.summary.unchanged)
            try add("planned", outcome.summary.planned)
            if let shard { try add("shard", shard.description) }
            try add("status", Int(outcome.status.rawValue))
            if let message = outcome.message { try add("message", message) }
        }
    }
}
