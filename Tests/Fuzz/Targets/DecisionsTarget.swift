import CollageKit

/// `--approve-from FILE`: the reviewer's decisions, as the review page
/// writes them (`ApprovalDecisions`). What parses names only plain paths
/// below the trees (none absolute, none with `..`, `.` or an empty
/// component, each once), digests of 64 lower-case hexadecimal digits or
/// none, and round-trips: written back as the page writes it, it parses to
/// the same decisions. What does not parse is refused in one line.
enum DecisionsTarget {
    static let parse = FuzzTarget("decisions", maxLength: 8192) { bytes in
        switch ApprovalDecisions.parse(bytes) {
        case .failure(let error):
            return first(error.message.isEmpty ? "refused without a reason" : nil,
                         error.message.contains("\n") ? "refused in more than one line: \(error.message)" : nil)
        case .success(let decisions):
            var seen: Set<[UInt8]> = []
            for decision in decisions.decisions {
                if let problem = ApprovalDecisions.problem(with: decision.path) {
                    return "'\(decision.path)' \(problem), yet it parsed"
                }
                if decision.path.bytes.first == UInt8(ascii: "/")
                    || decision.path.bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
                        .contains(where: { $0.isEmpty || $0.elementsEqual("..".utf8) || $0.elementsEqual(".".utf8) }) {
                    return "'\(decision.path)' leaves the trees, yet it parsed"
                }
                if let digest = decision.sha256,
                   digest.utf8.count != 64 || !digest.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) {
                    return "'\(digest)' is no SHA-256, yet it parsed"
                }
                if !seen.insert(decision.path.bytes).inserted { return "'\(decision.path)' twice, yet it parsed" }
            }
            guard case .success(let again) = ApprovalDecisions.parse(decisions.json()) else {
                return "written back, the decisions do not parse: \(String(decoding: decisions.json(), as: UTF8.self))"
            }
            return again == decisions ? nil : "written back, the decisions parse to others"
        }
    }
}
