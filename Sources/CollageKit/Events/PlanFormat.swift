import FoundationEssentials

/// The lines of a plan file (`--plan FILE`, read by `--from-plan FILE`),
/// version 2: NDJSON, one object a line (its keys sorted), in this order:
///
///     {"collage_plan":2,"configuration":{...},"directory":D,"kind":"sheets",...}  the header
///     {"detail":T,"event":"rejected","path":P,"reason":R}                     what the scan found
///     {"first":I,"height":H,"images":[...],"output":O,"sheet":K,"width":W}    one line a sheet
///     {"end":L,"fnv1a":"0123456789abcdef","sheets":S}                         the trailer
///
/// With `--per-folder` (kind "folders"), each folder's lines are between
/// `{"folder":F,"root":INPUT}` and `{"folder_end":F}`, its sheets numbered
/// from 1; lines outside them are the job's. With `--group-by` (kind
/// "groups"), each group's lines are between `{"group":NAME}` and
/// `{"group_end":NAME}`, in the order the groups are made.
///
/// Each image of a sheet is `{"path":P,"size":BYTES,"mtime_ns":NS,
/// "rect":[X,Y,W,H],"label":T}`, and `"stack":K` where `--pick` stacked K
/// photos into it. A path is a JSON string when it is
/// UTF-8, else `{"base64":B}` (its bytes). The trailer counts the lines
/// before it and carries the 64-bit FNV-1a of all their bytes: a plan cut
/// short, edited or spliced is refused before anything is decoded.
enum PlanFormat {
    /// Bumped whenever a line's meaning changes; another version is refused.
    /// Version 1 recorded the command line; version 2 its `Configuration`.
    static let version = 2
}

/// A path in a plan: exact bytes, readable when they are UTF-8.
struct PlanPath: Codable, Equatable, Sendable {
    let path: PathName

    init(_ path: PathName) { self.path = path }

    private struct Encoded: Codable { let base64: String }

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            path = PathName(text)
        } else {
            let encoded = try container.decode(Encoded.self)
            guard let data = Data(base64Encoded: encoded.base64) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64"))
            }
            path = PathName(bytes: Array(data))
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if path.isValidUTF8 { try container.encode(path.description) } else {
            try container.encode(Encoded(base64: Data(path.bytes).base64EncodedString()))
        }
    }
}

/// One image of a planned sheet: what it was when planned, where it goes.
struct PlanImage: Codable, Equatable, Sendable {
    let path: PlanPath
    let size: Int64
    let mtime_ns: Int64
    let rect: [Int]
    var label: String?
    /// `--pick`: how many photos it stands for, when more than itself (its `{stack}`).
    var stack: Int?

    init(path: PathName, stamp: FileStamp, rect: TileRect, label: String?) {
        self.path = PlanPath(path)
        (size, mtime_ns) = (stamp.size, stamp.modified)
        self.rect = [rect.x, rect.y, rect.width, rect.height]
        self.label = label
    }

    var stamp: FileStamp { FileStamp(size: size, modified: mtime_ns) }
    var tileRect: TileRect? {
        rect.count == 4 ? TileRect(x: rect[0], y: rect[1], width: rect[2], height: rect[3]) : nil
    }
}

/// Any line of a plan: the fields of each kind, all optional, so that one
/// decode reads whichever it is.
struct PlanLine: Codable, Sendable {
    // The header.
    var collage_plan: Int?
    /// The configuration that made the plan (without `--plan FILE` and the
    /// options that do not shape it): a run from the plan runs it.
    var configuration: Configuration?
    /// The working folder the plan was made in (relative INPUTs are below it).
    var directory: PlanPath?
    /// "sheets" (`--sheets`) or "collage" (one collage up to the cap).
    var kind: String?
    var max: Int?
    // What the scan found: "rejected", "failed", "paired", "passed-over", "notice".
    var event: String?
    var path: PlanPath?
    var reason: String?
    var detail: String?
    var with: PlanPath?
    // `--per-folder`: a folder's part begins (the folder, and the INPUT
    // it is below), and ends.
    var folder: PlanPath?
    var root: PlanPath?
    var folder_end: PlanPath?
    // `--group-by`: a group's part begins and ends.
    var group: String?
    var group_end: String?
    // A sheet.
    var sheet: Int?
    var first: Int?
    var output: PlanPath?
    var width: Int?
    var height: Int?
    var images: [PlanImage]?
    // The trailer.
    var end: Int?
    var sheets: Int?
    var fnv1a: String?

    init() {}

    /// The line's bytes, newline included.
    var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try! encoder.encode(self)) + [UInt8(ascii: "\n")]  // plain values: cannot fail
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> PlanLine? {
        try? JSONDecoder().decode(PlanLine.self, from: Data(bytes))
    }
}
