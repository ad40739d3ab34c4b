/// How many pairs of each status a run found, and how many fail.
public struct PairCounts: Sendable, Equatable {
    private var counts = [Int](repeating: 0, count: PairStatus.allCases.count)
    /// The pairs whose status `--fail-on` lists.
    public private(set) var failing = 0

    /// No pairs yet.
    public init() {}

    /// Every pair compared, whatever its status.
    public var total: Int { counts.reduce(0, +) }
    /// Some pair has a status `--fail-on` lists: exit status 1.
    public var differ: Bool { failing > 0 }

    /// One more pair of `status`; it fails when `fails` says so (nil:
    /// when `--fail-on`'s default lists its status).
    public mutating func count(_ status: PairStatus, fails: Bool? = nil) {
        counts[PairStatus.allCases.firstIndex(of: status)!] += 1
        if fails ?? PairStatus.failingByDefault.contains(status) { failing += 1 }
    }

    /// The pairs of `status`.
    public subscript(status: PairStatus) -> Int {
        counts[PairStatus.allCases.firstIndex(of: status)!]
    }

    /// "1 changed, 0 added, 0 removed", with resized, shifted and noise
    /// when there are any.
    var words: String {
        var parts = ["\(self[.changed]) changed", "\(self[.added]) added", "\(self[.removed]) removed"]
        for status in [PairStatus.resized, .shifted, .noise] where self[status] > 0 {
            parts.append("\(self[status]) \(status.rawValue)")
        }
        return parts.joined(separator: ", ")
    }

    mutating func add(_ other: PairCounts) {
        for index in counts.indices { counts[index] += other.counts[index] }
        failing += other.failing
    }
}

