import Glibc

/// A file's size and modification time, to tell whether it changed.
public struct FileStamp: Equatable, Sendable {
    public let size: Int64
    public let modified: Int64  // nanoseconds since the epoch

    public init(size: Int64, modified: Int64) {
        self.size = size
        self.modified = modified
    }

    init(_ info: stat) {
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// The stamp of the file at `path` (links followed), or nil.
    public static func of(_ path: PathName) -> FileStamp? {
        path.withCString { name in
            guard let name else { return nil }
            var info = stat()
            return stat(name, &info) == 0 ? FileStamp(info) : nil
        }
    }
}

/// What a run was made from, kept beside its output as `.NAME.collage-state`
/// for `--skip-unchanged` and `--watch`: the options that shape the output,
/// every input the run considered (path, size, modification time) in scan
/// order up to where it stopped, and the outputs it wrote (with their stamps,
/// so a deleted or edited output is redone).
public struct RunState: Equatable, Sendable {
    public struct Output: Equatable, Sendable {
        public let path: PathName
        public let stamp: FileStamp
        public let images: [PathName]
    }

    public struct Considered: Equatable, Sendable {
        public let path: PathName
        public let stamp: FileStamp?
    }

    static let header = "collage-state 1"

    public var options: String
    /// The run read its whole input; otherwise it stopped at the cap, and
    /// what comes after the last input listed cannot change the output.
    public var complete: Bool
    public var outputs: [Output]
    public var inputs: [Considered]

    public static func path(for output: PathName) -> PathName {
        Sidecar.state(for: output)
    }

    /// The options that decide what the output looks like, as one line.
    public static func options(of configuration: CollageConfiguration) -> String {
        var parts = [
            "size=\(configuration.canvasWidth)x\(configuration.canvasHeight)",
            "background=\(configuration.background)", "max=\(configuration.maxImages)",
            "sheets=\(configuration.sheets)", "portrait=\(configuration.allowPortrait)",
            "max-pixels=\(configuration.maxPixels)", "quality=\(configuration.quality.map(String.init) ?? "default")",
            "even=\(configuration.requireEven)", "links=\(configuration.followLinks)",
            "recursive=\(configuration.recursive)", "output=" + Base64.encode(configuration.output.bytes),
        ]
        for input in configuration.inputs {
            switch input {
            case .standardInput: parts.append("input=-")
            case .path(let path): parts.append("input=" + Base64.encode(path.bytes))
            }
        }
        return parts.joined(separator: " ")
    }

    var serialised: [UInt8] {
        var lines = [Self.header, "options " + options, "mode " + (complete ? "complete" : "cap")]
        for output in outputs {
            lines.append("output \(Base64.encode(output.path.bytes)) \(output.stamp.size) \(output.stamp.modified)")
            for image in output.images { lines.append("image " + Base64.encode(image.bytes)) }
        }
        for input in inputs {
            lines.append("input \(Base64.encode(input.path.bytes)) \(input.stamp?.size ?? -1) \(input.stamp?.modified ?? -1)")
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    init(options: String, complete: Bool, outputs: [Output], inputs: [Considered]) {
        self.options = options
        self.complete = complete
        self.outputs = outputs
        self.inputs = inputs
    }

    init?(parsing bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.first.map(String.init) == Self.header, lines.count >= 3,
              lines[1].hasPrefix("options "), lines[2].hasPrefix("mode ") else { return nil }
        options = String(lines[1].dropFirst("options ".count))
        complete = lines[2] == "mode complete"
        outputs = []
        inputs = []
        for line in lines.dropFirst(3) {
            let fields = line.split(separator: " ")
            switch fields.first {
            case "output" where fields.count == 4:
                guard let path = Base64.decode(String(fields[1])), let size = Int64(fields[2]),
                      let modified = Int64(fields[3]) else { return nil }
                outputs.append(Output(path: PathName(bytes: path), stamp: FileStamp(size: size, modified: modified), images: []))
            case "image" where fields.count == 2:
                guard let path = Base64.decode(String(fields[1])), let last = outputs.popLast() else { return nil }
                outputs.append(Output(path: last.path, stamp: last.stamp, images: last.images + [PathName(bytes: path)]))
            case "input" where fields.count == 4:
                guard let path = Base64.decode(String(fields[1])), let size = Int64(fields[2]),
                      let modified = Int64(fields[3]) else { return nil }
                inputs.append(Considered(path: PathName(bytes: path),
                                         stamp: size < 0 ? nil : FileStamp(size: size, modified: modified)))
            default:
                return nil
            }
        }
    }

    /// The state kept beside `output`, if there is a readable one.
    public static func load(for output: PathName) -> RunState? {
        let path = Self.path(for: output)
        let descriptor = path.withCString { $0.map { open($0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) } ?? -1 }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[..<count]
            if bytes.count > 64 << 20 { return nil }
        }
        return RunState(parsing: bytes)
    }

    public static func remove(for output: PathName) {
        _ = path(for: output).withCString { $0.map { unlink($0) } }
    }

    /// Whether a run with `configuration` would make the same output: same
    /// options, outputs untouched, and a fresh walk of the inputs (stat
    /// only, no image is opened) meets the same files with the same stamps.
    public func matches(_ configuration: CollageConfiguration) -> Bool {
        guard options == Self.options(of: configuration), !outputs.isEmpty,
              outputs.allSatisfy({ FileStamp.of($0.path) == $0.stamp }) else { return false }
        var walk = InputWalk(inputs: configuration.inputs, followLinks: configuration.followLinks,
                             nulSeparated: configuration.nulSeparated, recursive: configuration.recursive,
                             report: { _ in })
        for recorded in inputs {
            guard let file = walk.next(), file.path == recorded.path,
                  FileStamp.of(file.path) == recorded.stamp else { return false }
        }
        return !complete || walk.next() == nil
    }
}
