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

    /// Makes a file (or every file below a folder) two hours old: a file cut
    /// short is then `failed`, no longer one still being copied (passed over
    /// when modified within the last minute).
    func settle(_ relative: String = "") {
        let past = Int(time(nil)) - 7200
        let root = relative.hasPrefix("/") ? relative : path(relative)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder) else { return }
        var files = [root]
        if isFolder.boolValue, let walk = FileManager.default.enumerator(atPath: root) {
            files = walk.compactMap { ($0 as? String).map { root + "/" + $0 } }
        }
        for file in files {
            var times = [timespec(tv_sec: past, tv_nsec: 0), timespec(tv_sec: past, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, file, &times, 0)
        }
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

    /// Validates every line of a `--json` run against docs/json-events.md's table
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
