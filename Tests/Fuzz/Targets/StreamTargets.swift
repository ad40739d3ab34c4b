import CollageKit
import FoundationEssentials
import Glibc

/// What a run reads from a stream or a file it did not make: the path
/// list on standard input, and the `--skip-unchanged` state kept beside
/// an output (another run, or anyone, may have written it).
enum StreamTargets {
    static let all = [pathList, state]

    /// The first byte picks newline or NUL; the rest is standard input.
    /// The reader's paths are the input's records, in order, empty ones
    /// skipped, none holding the separator, whatever the 64 KiB blocks it
    /// reads in cut through.
    static let pathList = FuzzTarget("path-list", maxLength: 200_000) { bytes in
        guard let selector = bytes.first else { return nil }
        let nul = selector % 2 == 0
        let separator = nul ? 0 : UInt8(ascii: "\n")
        let input = Array(bytes.dropFirst())
        let read = ScratchFile.first.holding(input) { descriptor -> [[UInt8]]? in
            var reader = PathListReader(descriptor: descriptor, nulSeparated: nul, report: { _ in })
            var paths: [[UInt8]] = []
            while let path = reader.next() {
                paths.append(path.bytes)
                if paths.count > input.count { return nil }
            }
            return paths
        }
        guard let paths = read else { return "more paths than bytes" }
        let records = input.split(separator: separator).map(Array.init)
        return paths == records ? nil : "read \(paths.count) paths of \(records.count) records"
    }

    /// The state file as a run loads it: when it loads, what it says is
    /// written back the same way (JSON, paths as base64 of their bytes)
    /// and loads again as the same state.
    static let state = FuzzTarget("state", maxLength: 16384) { bytes in
        guard write(bytes, to: statePath) else { return "cannot write \(statePath)" }
        guard let loaded = RunState.load(for: output) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let again = try? encoder.encode(loaded) else { return "a loaded state does not encode" }
        guard write(Array(again), to: statePath), let reloaded = RunState.load(for: output) else {
            return "a loaded state written back does not load: \(String(decoding: again, as: UTF8.self))"
        }
        return reloaded == loaded ? nil : "a loaded state written back loads otherwise"
    }

    /// An output in a folder of its own, and the state beside it.
    static let output: PathName = {
        var template = Array((ProcessInfoLite.temporaryFolder + "/collage-fuzz-state-XXXXXX").utf8CString)
        let folder = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        return PathName(folder + "/sheet.jpg")
    }()
    static let statePath = RunState.path(for: output)

    static func write(_ bytes: [UInt8], to path: PathName) -> Bool {
        let descriptor = path.withCString { open($0!, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }
}
