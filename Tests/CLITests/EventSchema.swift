import Foundation

/// The `--json` events table of docs/json-events.md, as a validator.
enum EventSchema {
    enum Kind { case string, int, number, strings, rects, counts, statuses, shifts, score }

    /// Required fields of each event (besides `event`).
    static let required: [String: [String: Kind]] = [
        "accepted": ["path": .string, "width": .int, "height": .int, "orientation": .int, "format": .string],
        "rejected": ["path": .string, "reason": .string, "detail": .string],
        "failed": ["path": .string, "error": .string],
        "paired": ["path": .string, "with": .string],
        "placed": ["path": .string, "sheet": .int, "index": .int, "x": .int, "y": .int, "width": .int, "height": .int,
                   "focus": .string],
        "written": ["output": .string, "images": .strings, "width": .int, "height": .int, "sheet": .int,
                    "bytes": .int, "milliseconds": .int],
        "unchanged": ["output": .string, "images": .strings],
        "group": ["group": .string, "images": .int],
        "planned": ["output": .string, "images": .strings, "width": .int, "height": .int, "sheet": .int],
        "notice": ["message": .string],
        "compared": ["path": .string, "baseline": .string, "status": .string, "pixels": .int, "percent": .number,
                     "raw": .int],
        "flagged": ["path": .string, "reason": .string],
        "frame": ["path": .string, "time": .number, "output": .string, "cell": .int],
        "picked": ["path": .string, "moment": .int, "members": .int, "score": .score],
        "stacked": ["path": .string, "into": .string],
        "approved": ["path": .string, "baseline": .string, "status": .string],
        "summary": ["written": .int, "used": .int, "rejected": .int, "failed": .int, "unchanged": .int,
                    "planned": .int, "paired": .int, "passed_over": .counts, "status": .int],
    ]

    /// Fields an event has only sometimes: captions, and a dry run's plan.
    static let optional: [String: [String: Kind]] = [
        "placed": ["label": .string, "source": .string, "duration": .number, "frame": .number],
        "planned": ["rects": .rects, "labels": .strings, "group": .string],
        "written": ["group": .string],
        "summary": ["message": .string, "shard": .string, "flagged": .int, "compared": .statuses],
        "compared": ["size": .string, "shift": .shifts, "group": .int],
        "flagged": ["of": .string],
        "approved": ["alternative": .string],
    ]

    /// Path fields, which may carry a `_base64` twin when not UTF-8.
    static let pathFields: Set<String> = ["path", "output", "images", "of", "with", "baseline", "alternative", "into"]

    /// The statuses the summary's `compared` counts (`--diff`), every one always there.
    static let pairStatuses: Set<String> = ["changed", "resized", "shifted", "added", "removed", "noise", "unchanged"]

    /// The kinds the summary's `passed_over` counts, every one always there.
    static let passedOverKinds: Set<String> = ["empty", "not_image", "sidecar", "video", "raw", "being_written"]

    static func text(_ event: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "\(event)"
    }

    static func matches(_ value: Any?, _ kind: Kind) -> Bool {
        switch kind {
        case .string: return value is String
        case .int:
            // JSONSerialization gives NSNumber; a Bool (__NSCFBoolean) or a fraction is not an int.
            guard let value, let number = value as? NSNumber,
                  !String(describing: type(of: value)).contains("Boolean") else { return false }
            return value is Int && number.doubleValue == Double(number.intValue)
        case .number:
            guard let value, value is NSNumber, !String(describing: type(of: value)).contains("Boolean") else { return false }
            return true
        case .strings: return (value as? [Any])?.allSatisfy { $0 is String } ?? false
        case .counts:
            guard let counts = value as? [String: Any] else { return false }
            return Set(counts.keys) == passedOverKinds && counts.values.allSatisfy { matches($0, .int) }
        case .statuses:
            guard let counts = value as? [String: Any] else { return false }
            return Set(counts.keys) == pairStatuses && counts.values.allSatisfy { matches($0, .int) }
        case .shifts:
            return (value as? [[String: Any]])?.allSatisfy { band in
                ["y", "height", "dy"].allSatisfy { matches(band[$0], .int) }
                    && Set(band.keys).isSubset(of: ["y", "height", "dy", "dx"]) && (band["dx"].map { matches($0, .int) } ?? true)
            } ?? false
        case .score:
            // `picked`'s: sharpness and exposure 0-1, faces; faces_cut and rating when there are any.
            guard let score = value as? [String: Any],
                  Set(score.keys).isSubset(of: ["sharpness", "exposure", "faces", "faces_cut", "rating"]),
                  ["sharpness", "exposure"].allSatisfy({ matches(score[$0], .number) }), matches(score["faces"], .int),
                  score["faces_cut"].map({ matches($0, .int) }) ?? true,
                  score["rating"].map({ matches($0, .int) }) ?? true else { return false }
            return true
        case .rects:
            return (value as? [Any])?.allSatisfy { ($0 as? [Any]).map { $0.count == 4 && $0.allSatisfy { matches($0, .int) } } ?? false } ?? false
        }
    }

    /// What is wrong with one event, by itself.
    static func problems(_ event: [String: Any]) -> [String] {
        guard let name = event["event"] as? String else { return ["no \"event\" string"] }
        guard let fields = required[name] else { return ["unknown event '\(name)'"] }
        var problems: [String] = []
        for (key, kind) in fields.sorted(by: { $0.key < $1.key }) {
            if event[key] == nil { problems.append("missing '\(key)'") }
            else if !matches(event[key], kind) { problems.append("'\(key)' is not of type \(kind)") }
        }
        for key in event.keys.sorted() where key != "event" && fields[key] == nil {
            if key.hasSuffix("_base64"), pathFields.contains(String(key.dropLast(7))) {
                problems += base64Problems(event, String(key.dropLast(7)))
            } else if let kind = optional[name]?[key] {
                if !matches(event[key], kind) { problems.append("'\(key)' is not of type \(kind)") }
            } else {
                problems.append("undocumented field '\(key)'")
            }
        }
        if name == "summary" {
            let status = event["status"] as? Int ?? -1
            if status != 0 && !(event["message"] is String) { problems.append("status \(status) without a message") }
            if status == 0 && event["message"] != nil { problems.append("a message with status 0") }
        }
        if name == "flagged" {
            let reason = event["reason"] as? String
            if !["blank", "duplicate"].contains(reason ?? "") { problems.append("unknown flag '\(reason ?? "nil")'") }
            if (reason == "duplicate") != (event["of"] != nil) { problems.append("'of' goes with a duplicate, only") }
        }
        if name == "compared", !pairStatuses.contains(event["status"] as? String ?? "") {
            problems.append("unknown status '\(event["status"] ?? "nil")'")
        }
        if name == "rejected", let reason = event["reason"] as? String,
           !["portrait", "too-large", "unsupported", "rating"].contains(reason) {
            problems.append("unknown reason '\(reason)'")
        }
        for key in ["width", "height", "bytes", "sheet"] where fields[key] != nil {
            if let value = event[key] as? Int, value < 1 { problems.append("'\(key)' is \(value)") }
        }
        for key in ["index", "x", "y", "milliseconds", "written", "used", "rejected", "failed", "unchanged", "planned"]
            where fields[key] != nil {
            if let value = event[key] as? Int, value < 0 { problems.append("'\(key)' is negative") }
        }
        if (event["images"] as? [Any])?.isEmpty == true { problems.append("'images' is empty") }
        return problems
    }

    /// `KEY_base64` is there only when the path is not UTF-8, and decodes to
    /// bytes that read as the plain field.
    static func base64Problems(_ event: [String: Any], _ key: String) -> [String] {
        func check(_ encoded: Any?, _ plain: Any?) -> String? {
            guard let encoded = encoded as? String, let data = Data(base64Encoded: encoded) else {
                return "'\(key)_base64' is not base64"
            }
            let bytes = Array(data)
            if String(validating: bytes, as: UTF8.self) != nil {
                return "'\(key)_base64' given for a path that is valid UTF-8"
            }
            if plain as? String != String(decoding: bytes, as: UTF8.self) {
                return "'\(key)' does not read as the bytes of '\(key)_base64'"
            }
            return nil
        }
        if key == "images" {
            guard let encoded = event["images_base64"] as? [Any], let plain = event["images"] as? [Any],
                  encoded.count == plain.count else {
                return ["'images_base64' is not a list as long as 'images'"]
            }
            // Entries for UTF-8 paths may be there (the list is parallel); each must decode and read the same.
            var problems: [String] = []
            var anyInvalid = false
            for (one, text) in zip(encoded, plain) {
                guard let string = one as? String, let data = Data(base64Encoded: string) else {
                    problems.append("an 'images_base64' entry is not base64")
                    continue
                }
                let bytes = Array(data)
                if String(validating: bytes, as: UTF8.self) == nil { anyInvalid = true }
                if text as? String != String(decoding: bytes, as: UTF8.self) {
                    problems.append("an 'images' entry does not read as its bytes")
                }
            }
            if !anyInvalid { problems.append("'images_base64' given though every image path is UTF-8") }
            return problems
        }
        return check(event[key + "_base64"], event[key]).map { [$0] } ?? []
    }

    /// Whether the stream as a whole holds together: `summary` once and
    /// last, its counts equal to the events, its status the exit status;
    /// `placed` events before each `written` one are its images in tile order.
    static func streamProblems(_ all: [[String: Any]], status: Int32?) -> [String] {
        var problems: [String] = []
        func named(_ name: String) -> [[String: Any]] { all.filter { $0["event"] as? String == name } }
        guard let summary = all.last, summary["event"] as? String == "summary" else {
            return ["the last line is not the summary"]
        }
        if named("summary").count != 1 { problems.append("\(named("summary").count) summary lines") }
        for name in ["written", "rejected", "failed", "unchanged", "planned"] {
            if summary[name] as? Int != named(name).count {
                problems.append("summary \(name) = \(summary[name] ?? "nil"), but \(named(name).count) '\(name)' events")
            }
        }
        if summary["paired"] as? Int != named("paired").count {
            problems.append("summary paired = \(summary["paired"] ?? "nil"), but \(named("paired").count) 'paired' events")
        }
        if summary["flagged"] as? Int ?? 0 != named("flagged").count {
            problems.append("summary flagged = \(summary["flagged"] ?? "nil"), but \(named("flagged").count) 'flagged' events")
        }
        let used = (named("written") + named("unchanged") + named("planned"))
            .reduce(0) { $0 + (($1["images"] as? [Any])?.count ?? 0) }
        if summary["used"] as? Int != used {
            problems.append("summary used = \(summary["used"] ?? "nil"), but the written/unchanged/planned events hold \(used) images")
        }
        if summary["status"] as? Int != status.map(Int.init) {
            problems.append("summary status \(summary["status"] ?? "nil") is not the exit status \(status.map(String.init) ?? "nil")")
        }
        // Every image used was accepted first (or paired: a pair's RAW or movie
        // shown because its still failed to decode); placed events match their sheet.
        var accepted = Set<String>()
        var placed: [[String: Any]] = []
        for event in all {
            switch event["event"] as? String {
            case "accepted", "paired", "compared": accepted.insert(event["path"] as? String ?? "")
            case "placed": placed.append(event)
            case "written":
                let images = event["images"] as? [String] ?? []
                for image in images where !accepted.contains(image) {
                    problems.append("'\(image)' written without an 'accepted' event before")
                }
                let sheet = event["sheet"] as? Int
                let paths = placed.map { $0["path"] as? String ?? "" }
                if paths != images { problems.append("placed \(paths) before written \(images)") }
                if placed.map({ $0["index"] as? Int ?? -1 }) != Array(0..<placed.count) {
                    problems.append("placed indices are not 0..<\(placed.count)")
                }
                for tile in placed {
                    if tile["sheet"] as? Int != sheet { problems.append("placed on sheet \(tile["sheet"] ?? "nil"), written as sheet \(sheet ?? -1)") }
                    let x = tile["x"] as? Int ?? -1, y = tile["y"] as? Int ?? -1
                    let w = tile["width"] as? Int ?? -1, h = tile["height"] as? Int ?? -1
                    if x < 0 || y < 0 || x + w > (event["width"] as? Int ?? 0) + 1 || y + h > (event["height"] as? Int ?? 0) + 1 {
                        problems.append("tile \(x),\(y) \(w)x\(h) outside the canvas")
                    }
                }
                placed = []
            case "planned", "unchanged":
                for image in event["images"] as? [String] ?? [] where event["event"] as? String == "planned"
                    && !accepted.contains(image) {
                    problems.append("'\(image)' planned without an 'accepted' event before")
                }
            default: break
            }
        }
        if !placed.isEmpty { problems.append("\(placed.count) placed events not followed by their written event") }
        return problems
    }
}
