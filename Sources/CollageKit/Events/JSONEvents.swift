/// The `--json` form of each event: one JSON object per line (NDJSON), keys
/// in a fixed order. A path that is not valid UTF-8 is shown with U+FFFD in
/// its usual field and kept exactly, base64-encoded, in a `_base64` field.
public enum JSONEvents {
    public static func line(for event: PipelineEvent) -> String {
        var object = JSONObject()
        switch event {
        case .accepted(let path, let header):
            object.add("event", "accepted")
            object.addPath("path", path)
            object.add("width", header.displayedWidth)
            object.add("height", header.displayedHeight)
            object.add("orientation", header.orientation)
            object.add("format", header.format)
        case .rejected(let path, let reason, let detail):
            object.add("event", "rejected")
            object.addPath("path", path)
            object.add("reason", reason.rawValue)
            object.add("detail", detail)
        case .failed(let path, let error):
            object.add("event", "failed")
            object.addPath("path", path)
            object.add("error", error)
        case .placed(let path, let sheet, let index, let rect):
            object.add("event", "placed")
            object.addPath("path", path)
            object.add("sheet", sheet)
            object.add("index", index)
            object.add("x", rect.x)
            object.add("y", rect.y)
            object.add("width", rect.width)
            object.add("height", rect.height)
        case .written(let sheet):
            object.add("event", "written")
            object.addPath("output", sheet.output)
            object.addPaths("images", sheet.images)
            object.add("width", sheet.width)
            object.add("height", sheet.height)
            object.add("sheet", sheet.sheet)
            object.add("bytes", sheet.bytes)
            object.add("milliseconds", sheet.milliseconds)
        case .planned(let sheet):
            object.add("event", "planned")
            object.addPath("output", sheet.output)
            object.addPaths("images", sheet.images)
            object.add("width", sheet.width)
            object.add("height", sheet.height)
            object.add("sheet", sheet.sheet)
        case .unchanged(let output, let images):
            object.add("event", "unchanged")
            object.addPath("output", output)
            object.addPaths("images", images)
        case .notice(let message):
            object.add("event", "notice")
            object.add("message", message)
        case .finished(let outcome):
            object.add("event", "summary")
            object.add("written", outcome.summary.written)
            object.add("used", outcome.summary.used)
            object.add("rejected", outcome.summary.rejected)
            object.add("failed", outcome.summary.failed)
            object.add("unchanged", outcome.summary.unchanged)
            object.add("planned", outcome.summary.planned)
            object.add("status", Int(outcome.status.rawValue))
            if let message = outcome.message { object.add("message", message) }
        }
        return object.text
    }
}

/// A JSON object written field by field, in order.
struct JSONObject {
    private var fields: [String] = []

    var text: String { "{" + fields.joined(separator: ",") + "}" }

    mutating func add(_ key: String, _ value: String) { fields.append(Self.quote(key) + ":" + Self.quote(value)) }
    mutating func add(_ key: String, _ value: Int) { fields.append(Self.quote(key) + ":" + String(value)) }

    mutating func addPath(_ key: String, _ path: PathName) {
        add(key, path.description)
        if !path.isValidUTF8 { add(key + "_base64", Base64.encode(path.bytes)) }
    }

    mutating func addPaths(_ key: String, _ paths: [PathName]) {
        fields.append(Self.quote(key) + ":[" + paths.map { Self.quote($0.description) }.joined(separator: ",") + "]")
        if paths.contains(where: { !$0.isValidUTF8 }) {
            fields.append(Self.quote(key + "_base64") + ":["
                          + paths.map { Self.quote(Base64.encode($0.bytes)) }.joined(separator: ",") + "]")
        }
    }

    static func quote(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20 || c.value == 0x7f:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = bytes[index]
            let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
            let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0f) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3f)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var lookup = [UInt8: UInt8]()
        for (index, symbol) in alphabet.enumerated() { lookup[symbol] = UInt8(index) }
        let symbols = Array(text.utf8).filter { $0 != UInt8(ascii: "=") }
        var out: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for symbol in symbols {
            guard let value = lookup[symbol] else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
