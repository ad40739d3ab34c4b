import Glibc

/// The lines of a file, one at a time, through a 64 KiB buffer: a plan of
/// ten million inputs is read without being held.
final class LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// The errno of a failed read.
    private(set) var failure: Int32?

    /// Where the buffer starts in the file.
    private var bufferOffset: Int64 = 0

    /// A file that cannot be opened reads as empty, with its `failure`.
    /// `offset`: where to start (the start of a line).
    init(_ path: PathName, offset: Int64 = 0) {
        descriptor = path.withCString { $0.map { open($0, O_RDONLY | O_CLOEXEC) } ?? -1 }
        if descriptor < 0 { (failure, atEnd) = (errno, true) }
        if descriptor >= 0, offset > 0, lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) {
            bufferOffset = offset
        }
    }

    /// Where the next line starts in the file.
    var offset: Int64 { bufferOffset + Int64(start) }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// The next line without its newline; a last line without one too
    /// (`complete` false), or nil at the end.
    func next() -> (line: ArraySlice<UInt8>, complete: Bool)? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                return (buffer[start..<newline], true)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return (buffer[start...], false)
            }
            buffer.removeSubrange(..<start)
            bufferOffset += Int64(start)
            start = 0
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { failure = errno }
            if count <= 0 { atEnd = true } else { buffer += chunk[..<count] }
        }
    }
}

/// Why a plan cannot be used: the line a run prints, and its status.
struct PlanProblem: Error, Sendable {
    let status: ExitStatus
    let message: String

    init(status: ExitStatus, message: String) { (self.status, self.message) = (status, message) }
}

/// Reading a plan (see `PlanFormat`): first the whole file is checked
/// (header, version, every line counted and hashed against the trailer),
/// then its lines are streamed to the run one at a time.
enum PlanFile {
    /// The working folder, as a plan records it (relative paths are below it).
    static var workingDirectory: PathName {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return PathName(".") }
        return PathName(bytes: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }

    /// The plan's header once the whole file has been checked.
    static func check(_ path: PathName) -> Result<PlanLine, PlanProblem> {
        func bad(_ why: String, _ status: ExitStatus = .noInput) -> Result<PlanLine, PlanProblem> {
            .failure(PlanProblem(status: status, message: "cannot use the plan \(path): \(why)"))
        }
        let reader = LineReader(path)
        if let failure = reader.failure { return bad(systemError(failure)) }
        guard let first = reader.next() else { return bad("it is empty") }
        guard let header = PlanLine.decode(first.line), let version = header.collage_plan else {
            return bad("it is not a collage plan (made by collage --plan)")
        }
        guard version == PlanFormat.version else {
            return bad("it is of version \(version); this collage reads version \(PlanFormat.version): plan again",
                       .usage)
        }
        guard header.configuration != nil, header.kind != nil else { return bad("its header is damaged") }
        var hash = RunningFNV()
        var lines = 0
        var sheets = 0
        var pending: ArraySlice<UInt8>? = first.line
        while let (line, complete) = reader.next() {
            guard complete else { return bad("it is cut short (its last line is incomplete)") }
            if let previous = pending {
                hash.add(previous)
                hash.add(CollectionOfOne(UInt8(ascii: "\n")))
                lines += 1
                if previous.starts(with: Array(#"{"first":"#.utf8)) { sheets += 1 }
            }
            pending = line
        }
        if let failure = reader.failure { return bad(systemError(failure)) }
        guard let last = pending, let trailer = PlanLine.decode(last), let end = trailer.end else {
            return bad("it is cut short (no closing line)")
        }
        guard end == lines, trailer.sheets == sheets, trailer.fnv1a == hash.hex else {
            return bad("it was changed after it was written (its lines do not match its closing line); plan again")
        }
        return .success(header)
    }
}

/// The lines of a checked plan after its header, up to its trailer; from
/// `offset` (a folder's or a group's part, see `PlanFormat`), up to its end.
/// Not Sendable (see `PullSource`): a `Pull` subscription steps the one it
/// made; `--from-plan`'s folders step theirs inside their `Mutex`.
final class PlanLines: PullSource {
    private let reader: LineReader
    private var skippedHeader: Bool
    private let oneFolder: Bool

    init(_ path: PathName, offset: Int64? = nil) {
        reader = LineReader(path, offset: offset ?? 0)
        (skippedHeader, oneFolder) = (offset != nil, offset != nil)
    }

    /// Where the next line starts in the file.
    var offset: Int64 { reader.offset }

    func next() -> PlanLine? {
        if !skippedHeader {
            skippedHeader = true
            _ = reader.next()
        }
        guard let (line, _) = reader.next(), let decoded = PlanLine.decode(line), decoded.end == nil,
              !(oneFolder && (decoded.folder_end != nil || decoded.group_end != nil)) else {
            return nil
        }
        return decoded
    }
}

extension PlanLine {
    /// What the scan found, as the event a run reports; nil for other lines.
    var scanEvent: PipelineEvent? {
        switch event {
        case "rejected":
            guard let path, let reason = reason.flatMap(RejectReason.init(rawValue:)) else { return nil }
            return .rejected(path: path.path, reason: reason, detail: detail ?? "")
        case "failed":
            return path.map { .failed(path: $0.path, error: detail ?? "") }
        case "paired":
            guard let path, let with else { return nil }
            return .paired(path: path.path, with: with.path)
        case "passed-over":
            guard let path, let kind = reason.flatMap(PassedOverKind.init(rawValue:)) else { return nil }
            return .passedOver(path: path.path, kind: kind)
        case "notice":
            return detail.map { .notice($0) }
        default:
            return nil
        }
    }
}
