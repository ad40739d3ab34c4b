import FoundationEssentials

/// A reviewer's decisions, as the `--html` review page writes them
/// (`decisions.json`) and `--approve-from FILE` reads them:
///
///     {"decisions": "collage --diff", "version": 1,
///      "baseline": "baseline/", "input": ["screenshots/"],
///      "approve": [{"path": "login.png", "sha256": "9f86…", "alternative": false}]}
///
/// BASELINE and each INPUT as the run that wrote the page was given them;
/// each approved pair by its path below them (`path_base64` instead when
/// its bytes are not UTF-8), whether its old baseline is kept as an
/// alternative, and the SHA-256 of the current file the reviewer saw
/// (null for a `removed` pair, which has none). Nothing else is accepted:
/// a key not named here, a value of another type, a path that is absolute,
/// empty, or that has an empty, `.` or `..` component, a digest that is
/// not 64 lower-case hexadecimal digits, a path named twice: the whole file
/// is refused.
public struct ApprovalDecisions: Sendable, Equatable {
    public struct Decision: Sendable, Equatable {
        /// The pair's path below BASELINE and INPUT.
        public let path: PathName
        /// Keep the old baseline as `NAME~K.EXT` (`--alternative`).
        public let alternative: Bool
        /// The current file's SHA-256 as the reviewer saw it; nil: it had none (removed).
        public let sha256: String?

        public init(path: PathName, alternative: Bool, sha256: String?) {
            (self.path, self.alternative, self.sha256) = (path, alternative, sha256)
        }
    }

    /// BASELINE, as given to the run that wrote the page.
    public let baseline: String
    /// Each INPUT, as given.
    public let inputs: [String]
    public let decisions: [Decision]

    public init(baseline: String, inputs: [String], decisions: [Decision]) {
        (self.baseline, self.inputs, self.decisions) = (baseline, inputs, decisions)
    }

    /// The `decisions` field's value, which says what the file is.
    public static let kind = "collage --diff"
    public static let version = 1
    /// The largest decisions file read.
    public static let limit = 16 << 20

    /// The file's bytes as decisions; why not, in a few words.
    public static func parse(_ bytes: [UInt8]) -> Result<ApprovalDecisions, DecisionsError> {
        let file: DecisionsFile
        do {
            file = try JSONDecoder().decode(DecisionsFile.self, from: Data(bytes))
        } catch let error as DecisionsError {
            return .failure(error)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            return .failure(DecisionsError("not JSON"))
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
                DecodingError.dataCorrupted(let context) {
            return .failure(DecisionsError("not decisions: \(place(context.codingPath)) is not what the review page writes"))
        } catch DecodingError.keyNotFound(let key, let context) {
            return .failure(DecisionsError("not decisions: \(place(context.codingPath + [key])) is missing"))
        } catch {
            return .failure(DecisionsError("not JSON"))
        }
        guard file.decisions == kind else { return .failure(DecisionsError("not decisions: \"decisions\" is not \"\(kind)\"")) }
        guard file.version == version else {
            return .failure(DecisionsError("decisions of version \(file.version), not \(version)"))
        }
        var seen: Set<PathName> = []
        var decisions: [Decision] = []
        for entry in file.approve {
            let path: PathName
            switch (entry.path, entry.pathBase64) {
            case (let text?, nil): path = PathName(text)
            case (nil, let encoded?):
                guard let data = Data(base64Encoded: encoded) else {
                    return .failure(DecisionsError("not decisions: a path_base64 is not base64"))
                }
                path = PathName(bytes: Array(data))
            default: return .failure(DecisionsError("not decisions: each approved pair has one path or path_base64"))
            }
            if let problem = problem(with: path) { return .failure(DecisionsError("'\(shown(path))' \(problem)")) }
            if let digest = entry.sha256, !isDigest(digest) {
                return .failure(DecisionsError("'\(shown(path))': its sha256 is not 64 hexadecimal digits"))
            }
            guard seen.insert(path).inserted else { return .failure(DecisionsError("'\(shown(path))' is named twice")) }
            decisions.append(Decision(path: path, alternative: entry.alternative ?? false, sha256: entry.sha256))
        }
        return .success(ApprovalDecisions(baseline: file.baseline, inputs: file.input, decisions: decisions))
    }

    /// A path as a line names it: control characters (a newline in a
    /// name) written as `\xHH`, so that a refusal stays one line.
    public static func shown(_ path: PathName) -> String {
        var out = ""
        for scalar in path.description.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{85}" {
                let hex = String(scalar.value, radix: 16)
                out += "\\x" + (hex.count < 2 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Why a path cannot be a pair's path below the roots, or nil.
    public static func problem(with path: PathName) -> String? {
        let bytes = path.bytes
        if bytes.isEmpty { return "is empty" }
        if bytes.first == UInt8(ascii: "/") { return "is absolute: name a path below BASELINE and INPUT" }
        if bytes.contains(0) { return "holds a NUL byte" }
        for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.elementsEqual("..".utf8) { return "leaves the trees (..)" }
            if component.isEmpty || component.elementsEqual(".".utf8) { return "is not a plain path below the trees" }
        }
        return nil
    }

    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Where in the file: "approve[0].sha256".
    private static func place(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the file" }
        var text = ""
        for key in path {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return shown(PathName(text))
    }

    /// `text` as a JSON string, quotes included: `"` and `\` escaped,
    /// control characters as `\u00XX`, and `<` as `\u003c`, so that the
    /// text can stand inside an HTML page's script or element too.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// The decisions as the page writes them (one line a pair).
    public func json() -> [UInt8] {
        let string = Self.jsonString
        let pairs = decisions.map { decision in
            let path = decision.path.isValidUTF8 ? "\"path\": " + string(decision.path.description)
                : "\"path_base64\": " + string(Data(decision.path.bytes).base64EncodedString())
            return "    {\(path), \"sha256\": \(decision.sha256.map(string) ?? "null"), "
                + "\"alternative\": \(decision.alternative)}"
        }
        let text = "{\n  \"decisions\": \(string(Self.kind)),\n  \"version\": \(Self.version),\n"
            + "  \"baseline\": \(string(baseline)),\n  \"input\": [\(inputs.map(string).joined(separator: ", "))],\n"
            + "  \"approve\": [" + (pairs.isEmpty ? "]" : "\n" + pairs.joined(separator: ",\n") + "\n  ]") + "\n}\n"
        return Array(text.utf8)
    }

    /// A root as given, for comparing: "./" in front and "/" behind taken off.
    static func sameRoot(_ a: String, _ b: String) -> Bool {
        func plain(_ text: String) -> [UInt8] {
            var bytes = Array(text.utf8)[...]
            while bytes.starts(with: Array("./".utf8)), bytes.count > 2 { bytes = bytes.dropFirst(2) }
            while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes = bytes.dropLast() }
            return Array(bytes)
        }
        return plain(a) == plain(b)
    }
}

/// Why a decisions file was refused.
public struct DecisionsError: Error, Equatable, Sendable {
    public let message: String
    init(_ message: String) { self.message = message }
}

/// The file's shape, read strictly: a key not named here is refused.
private struct DecisionsFile: Decodable {
    let decisions: String
    let version: Int
    let baseline: String
    let input: [String]
    let approve: [Entry]

    struct Entry: Decodable {
        let path: String?
        let pathBase64: String?
        let sha256: String?
        let alternative: Bool?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case path, pathBase64 = "path_base64", sha256, alternative
        }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            try refuseOthers(container, CodingKeys.allCases.map(\.rawValue))
            let known = try decoder.container(keyedBy: CodingKeys.self)
            path = try known.decodeIfPresent(String.self, forKey: .path)
            pathBase64 = try known.decodeIfPresent(String.self, forKey: .pathBase64)
            sha256 = try known.decode(String?.self, forKey: .sha256)
            alternative = try known.decodeIfPresent(Bool.self, forKey: .alternative)
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case decisions, version, baseline, input, approve }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try refuseOthers(container, CodingKeys.allCases.map(\.rawValue))
        let known = try decoder.container(keyedBy: CodingKeys.self)
        decisions = try known.decode(String.self, forKey: .decisions)
        version = try known.decode(Int.self, forKey: .version)
        baseline = try known.decode(String.self, forKey: .baseline)
        input = try known.decode([String].self, forKey: .input)
        approve = try known.decode([Entry].self, forKey: .approve)
    }
}

private struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private func refuseOthers(_ container: KeyedDecodingContainer<AnyKey>, _ names: [String]) throws {
    if let other = container.allKeys.first(where: { !names.contains($0.stringValue) }) {
        throw DecisionsError("not decisions: the key \"\(ApprovalDecisions.shown(PathName(other.stringValue)))\" "
                             + "is not one the review page writes")
    }
}
