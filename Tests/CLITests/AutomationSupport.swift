import Foundation
import Glibc
import Synchronization
import Vips
import XCTest

/// Helpers for the automation tests: runs under a pseudo-terminal,
/// file times, generated noisy images, and the `--json` event schema.

/// A file's size and modification time in nanoseconds since the epoch (lstat), or nil.
struct FileTime: Equatable, CustomStringConvertible {
    let size: Int
    let modified: Int64
    let inode: UInt
    var description: String { "\(size) bytes, mtime \(modified) ns, inode \(inode)" }
}

/// Escapes text for a POSIX shell: one single-quoted word.
func shellQuoted(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// The bytes seen on a terminal by a run under a pseudo-terminal, and how it ended.
struct TerminalResult {
    /// Everything the program wrote to its terminal (its standard error;
    /// standard output was redirected to a file).
    var terminal: [UInt8]
    /// The program's standard output (a file, not a terminal).
    var stdout: [UInt8]
    var status: Int32?
    var timedOut: Bool
    var elapsed: Double

    var terminalText: String { String(decoding: terminal, as: UTF8.self) }
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// The terminal bytes made readable: ESC as \e, CR as \r.
    var visible: String {
        terminalText.replacingOccurrences(of: "\u{1B}", with: "\\e").replacingOccurrences(of: "\r", with: "\\r")
    }
    var summary: String {
        let how = timedOut ? "timed out" : status.map { "exit \($0)" } ?? "no status"
        return "\(how) after \(String(format1: elapsed)) s\n--- terminal:\n\(visible)\n--- stdout:\n\(stdoutText)---"
    }
}

extension CLITestCase {
    // MARK: - Files

    func fileTime(_ relative: String) -> FileTime? {
        var info = stat()
        guard lstat(relative.hasPrefix("/") ? relative : path(relative), &info) == 0 else { return nil }
        return FileTime(size: Int(info.st_size),
                        modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                        inode: UInt(info.st_ino))
    }

    /// Sets a file's access and modification times to `seconds` since the epoch.
    func setModificationTime(_ relative: String, seconds: Int, nanoseconds: Int = 0) {
        var times = [timespec(tv_sec: seconds, tv_nsec: nanoseconds), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
        XCTAssertEqual(utimensat(AT_FDCWD, path(relative), &times, 0), 0, "utimensat \(relative)")
    }

    /// Writes a file the way a careful copy does: to a hidden name beside
    /// it, then renamed over, so a watcher never sees half of it.
    func writeAtomically(_ bytes: [UInt8], to relative: String) {
        let folder = (relative as NSString).deletingLastPathComponent
        let name = (relative as NSString).lastPathComponent
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".incoming-" + name
        write(bytes, to: temporary)
        XCTAssertEqual(rename(path(temporary), path(relative)), 0, "rename into \(relative)")
    }

    /// Names in a folder that a run must never leave behind: temporary files and lock files.
    func litter(_ relative: String = "") -> [String] {
        listingText(relative).filter { $0.contains("collage-tmp") || $0.contains("collage-lock") }
    }

    // MARK: - Images made by the vips command

    private static let noisy = Mutex<[String: [UInt8]]>([:])

    /// A JPEG of grey noise, `width` x `height`, made by libvips' command
    /// line (libvips-tools): costly to decode on purpose. Skips the test if
    /// `vips` is missing.
    func noisyJPEG(width: Int, height: Int, bands: Int = 1) throws -> [UInt8] {
        let key = "\(width)x\(height)x\(bands)"
        if let cached = Self.noisy.withLock({ $0[key] }) { return cached }
        guard haveProgram("vips") else { throw XCTSkip("the vips command (libvips-tools) is not installed") }
        let scratch = "/tmp/collage-cli-noise-\(getpid())-\(key)"
        mkdir(scratch, 0o755)
        defer { _ = try? runProcess([b("rm"), b("-rf"), b(scratch)]) }
        // Noise of one tile, repeated: quick to make, still slow to decode.
        let tile = min(1000, width)
        let across = (width + tile - 1) / tile, down = (height + tile - 1) / tile
        var steps: [[String]] = [
            ["gaussnoise", scratch + "/tile.v", "\(tile)", "\(tile)", "--sigma", "80", "--mean", "128"],
            ["replicate", scratch + "/tile.v", scratch + "/wide.v", "\(across)", "\(down)"],
            ["extract_area", scratch + "/wide.v", scratch + "/cut.v", "0", "0", "\(width)", "\(height)"],
            ["cast", scratch + "/cut.v", scratch + "/grey.v", "uchar"],
        ]
        var last = scratch + "/grey.v"
        if bands == 3 {
            steps.append(["bandjoin", "\(last) \(last) \(last)", scratch + "/rgb.v"])
            last = scratch + "/rgb.v"
        }
        steps.append(["copy", last, scratch + "/noise.jpg[Q=90]"])
        for step in steps {
            let made = try runProcess([b("vips")] + step.map(b), timeout: 300)
            guard made.status == 0 else { throw SpawnError.system("vips \(step[0]): \(made.stderrText)", 0) }
        }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: scratch + "/noise.jpg")))
        Self.noisy.withLock { $0[key] = bytes }
        return bytes
    }

    // MARK: - A pseudo-terminal

    /// Runs `collage` with its standard error on a pseudo-terminal (util-linux
    /// `script`), standard output redirected to a file, in the test folder.
    /// `environment` is set and `unset` removed for the program only.
    func collageOnTerminal(_ arguments: [String], environment: [String: String] = [:], unset: [String] = [],
                           timeout: Double = 180) throws -> TerminalResult {
        guard haveProgram("script") else { throw XCTSkip("util-linux script is not installed") }
        let stdoutFile = path(".terminal-run-stdout")
        var words = ["env"]
        for name in unset { words += ["-u", name] }
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { words.append("\(name)=\(value)") }
        words.append(Package.binary)
        words += arguments
        let command = words.map(shellQuoted).joined(separator: " ") + " > " + shellQuoted(stdoutFile)
        let result = try runProcess([b("script"), b("-qfec"), b(command), b("/dev/null")], directory: dir,
                                    timeout: timeout)
        let stdout = contents(b(stdoutFile)) ?? []
        unlink(stdoutFile)
        return TerminalResult(terminal: result.stdout, stdout: stdout, status: result.status,
                              timedOut: result.timedOut, elapsed: result.elapsed)
    }

    // MARK: - The --json events

    /// Validates every line of a `--json` run against README's events table
    /// and the summary against the other events; returns the events. The
    /// exit status must equal the summary's `status`.
    @discardableResult
    func assertValidEventStream(_ result: ProcessResult, _ scenario: String,
                                file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        XCTAssertFalse(result.timedOut, "\(scenario): timed out\n\(result.summary)", file: file, line: line)
        let all = jsonEvents(result, file: file, line: line)
        XCTAssertEqual(all.count, result.stdoutLines.count, "\(scenario): every stdout line is an event object",
                       file: file, line: line)
        for (index, event) in all.enumerated() {
            for problem in EventSchema.problems(event) {
                XCTFail("\(scenario): line \(index + 1) \(EventSchema.text(event)): \(problem)", file: file, line: line)
            }
        }
        for problem in EventSchema.streamProblems(all, status: result.status) {
            XCTFail("\(scenario): \(problem)\n\(result.summary)", file: file, line: line)
        }
        return all
    }
}

/// README's `--json` events table, as a validator.
enum EventSchema {
    enum Kind { case string, int, number, strings, rects }

    /// Required fields of each event (besides `event`).
    static let required: [String: [String: Kind]] = [
        "accepted": ["path": .string, "width": .int, "height": .int, "orientation": .int, "format": .string],
        "rejected": ["path": .string, "reason": .string, "detail": .string],
        "failed": ["path": .string, "error": .string],
        "placed": ["path": .string, "sheet": .int, "index": .int, "x": .int, "y": .int, "width": .int, "height": .int],
        "written": ["output": .string, "images": .strings, "width": .int, "height": .int, "sheet": .int,
                    "bytes": .int, "milliseconds": .int],
        "unchanged": ["output": .string, "images": .strings],
        "planned": ["output": .string, "images": .strings, "width": .int, "height": .int, "sheet": .int],
        "notice": ["message": .string],
        "flagged": ["path": .string, "reason": .string],
        "summary": ["written": .int, "used": .int, "rejected": .int, "failed": .int, "unchanged": .int,
                    "planned": .int, "status": .int],
    ]

    /// Fields an event has only sometimes: captions, and a dry run's plan.
    static let optional: [String: [String: Kind]] = [
        "placed": ["label": .string, "source": .string, "duration": .number, "frame": .number],
        "planned": ["rects": .rects, "labels": .strings],
        "summary": ["message": .string, "shard": .string, "flagged": .int],
        "flagged": ["of": .string],
    ]

    /// Path fields, which may carry a `_base64` twin when not UTF-8.
    static let pathFields: Set<String> = ["path", "output", "images", "of"]

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
        case .number: return value.map { $0 is NSNumber && !String(describing: type(of: $0)).contains("Boolean") } ?? false
        case .strings: return (value as? [Any])?.allSatisfy { $0 is String } ?? false
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
        if name == "rejected", let reason = event["reason"] as? String,
           !["portrait", "too-large", "unsupported"].contains(reason) {
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
        // Every image used was accepted first; placed events match their sheet.
        var accepted = Set<String>()
        var placed: [[String: Any]] = []
        for event in all {
            switch event["event"] as? String {
            case "accepted": accepted.insert(event["path"] as? String ?? "")
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
