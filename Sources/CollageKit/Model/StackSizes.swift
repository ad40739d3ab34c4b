import Locking

/// `--pick`: how many photos each picked image stands for, written by the
/// pick as it chooses, read by `{stack}` as captions are drawn. One per
/// job, shared by its runs (a path is picked by one of them).
final class StackSizes: Sendable, Equatable {
    private let sizes = Locked<[PathName: Int]>([:])

    init() {}

    /// `path` stands for `members` photos, itself among them. Only stacks
    /// are kept (a photo standing for itself alone is what `members` says
    /// of any path): 50,000 moments of one photo each hold nothing here.
    func record(_ path: PathName, members: Int) {
        sizes.withLock { $0[path] = members > 1 ? members : nil }
    }

    /// How many photos `path` stands for, itself among them (1 when it was not picked).
    func members(_ path: PathName) -> Int { sizes.withLock { $0[path] } ?? 1 }

    /// `{stack}`: `+K` for the K photos `path` stands for besides itself; empty for one.
    func label(_ path: PathName) -> String {
        let members = members(path)
        return members > 1 ? "+\(members - 1)" : ""
    }

    static func == (a: StackSizes, b: StackSizes) -> Bool { a === b }
}
