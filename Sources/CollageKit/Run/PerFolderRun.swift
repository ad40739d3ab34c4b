import Glibc
import Logging
@preconcurrency import OpenCombine
import Synchronization

/// `--per-folder`: one collage per folder that holds eligible images. The
/// folders of each INPUT are walked lazily, depth first, in byte order; each
/// is one `CollageRun` over that folder's own files, written to the output
/// template with `{dir}` (the folder's name) and `{path}` (its path below
/// the INPUT, `/` replaced by `_`) filled in.
public final class PerFolderRun: CollageJob, Sendable {
    public let configuration: CollageConfiguration
    private let logger: Logger
    private let hub = EventHub()
    /// The stop asked for, and the folder's run going now: set together, so
    /// that a stop either reaches the run or prevents it.
    private let state = Mutex<(stop: ExitStatus?, current: CollageRun?)>((nil, nil))

    public init(configuration: CollageConfiguration, logger: Logger = Logger(label: "collage")) {
        self.configuration = configuration
        self.logger = logger
    }

    public var events: AnyPublisher<PipelineEvent, Never> { hub.events }

    public static func hasPlaceholder(_ output: PathName) -> Bool {
        let text = output.bytes
        return contains(text, Array("{dir}".utf8)) || contains(text, Array("{path}".utf8))
    }

    /// The output for `folder`, found under the INPUT `root`.
    public static func output(template: PathName, folder: PathName, root: PathName) -> PathName {
        var relative = relativePath(folder: folder, root: root)
        if relative.isEmpty { relative = root.ownName }
        relative = relative.map { $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        let named = replace(template.bytes, Array("{dir}".utf8), with: folder.ownName)
        return PathName(bytes: replace(named, Array("{path}".utf8), with: relative))
    }

    /// The folder's path below the INPUT `root`; empty for `root` itself
    /// (what `--shard` hashes).
    public static func relativePath(folder: PathName, root: PathName) -> [UInt8] {
        Array(folder.bytes.dropFirst(root.bytes.count).drop { $0 == UInt8(ascii: "/") })
    }

    public func interrupt(_ status: ExitStatus) {
        let current = state.withLock { state -> CollageRun? in
            state.stop = state.stop ?? status
            return state.current
        }
        current?.interrupt(status)
    }

    public func run() -> RunOutcome {
        var summary = Summary()
        var written = 0
        var othersFolders = 0
        var fatal: RunOutcome?
        var outputs: [PathName: PathName] = [:]
        let send: (PipelineEvent) -> Void = { [hub] event in
            summary.count(event)
            hub.send(event)
        }
        folders: for input in configuration.inputs {
            guard case .path(let root) = input else { continue }
            var walk = DirectoryWalk(root: root, followLinks: configuration.followLinks, folders: true,
                                     rules: configuration.scan, report: send)
            while let folder = walk.next() {
                let output = Self.output(template: configuration.output, folder: folder, root: root)
                if let other = outputs[output] {
                    send(.failed(path: folder, error: "its collage '\(output)' would replace the one of '\(other)'; use {path} in --output"))
                    continue
                }
                if let shard = configuration.shard,
                   !shard.owns(folder: Self.relativePath(folder: folder, root: root)) {
                    // Another shard's: its output is taken all the same, so that a
                    // folder of this shard that would replace it is refused here
                    // too, and no file is written by two shards.
                    outputs[output] = folder
                    othersFolders += 1
                    continue
                }
                var single = configuration
                single.shard = nil  // the folder is this shard's whole
                single.inputs = [.path(folder)]
                single.recursive = false
                single.output = output
                single.scan.below = Self.relativePath(folder: folder, root: root)  // what --exclude matches below
                let run = CollageRun(configuration: single, logger: logger)
                // Check and publish under one lock: a stop that comes after
                // this reaches the run through `interrupt`.
                let go = state.withLock { state -> Bool in
                    guard state.stop == nil else { return false }
                    state.current = run
                    return true
                }
                guard go else { break folders }
                let outcome = hub.forwarding(run)
                state.withLock { $0.current = nil }
                summary.add(outcome.summary)
                switch outcome.status {
                case .success, .someInputsFailed:
                    written += 1
                    outputs[output] = folder
                case .noInput:
                    // A folder that holds no image file at all (only folders,
                    // or other files) is not worth a notice: README's cron
                    // line over ~/Photos would otherwise mail one every night.
                    if outcome.summary.considered > 0 || outcome.summary.failed > 0 {
                        send(.notice("skipped folder '\(folder)': nothing eligible"))
                    }
                case .interrupted, .terminated, .cannotCreateOutput, .ioError, .usage:
                    fatal = outcome
                    break folders
                }
            }
        }
        let outcome: RunOutcome
        if let stopped = state.withLock({ $0.stop }) {
            outcome = RunOutcome(status: stopped, message: "interrupted: no partial output left", summary: summary)
        } else if let fatal {
            outcome = RunOutcome(status: fatal.status, message: fatal.message, summary: summary)
        } else if written == 0 && othersFolders == 0 {
            outcome = RunOutcome(status: .noInput, message: "no folder holds an eligible image", summary: summary)
        } else if summary.failed > 0 {
            outcome = RunOutcome(status: .someInputsFailed,
                                 message: "\(summary.failed) input(s) or folder(s) could not be used (each reported above)",
                                 summary: summary)
        } else {
            outcome = RunOutcome(status: .success, message: nil, summary: summary)
        }
        hub.send(.finished(outcome))
        return outcome
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.count >= needle.count && (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    private static func replace(_ bytes: [UInt8], _ needle: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if index + needle.count <= bytes.count, bytes[index..<(index + needle.count)].elementsEqual(needle) {
                out += replacement
                index += needle.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }
}
