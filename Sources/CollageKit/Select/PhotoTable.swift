/// An image chosen on its header in an earlier pass, its file let go:
/// what opening it again needs (`Reopening`), and nothing of its header,
/// which is read again then.
struct ImageToOpen: Sendable {
    let path: PathName
    let stamp: FileStamp
    let partners: [PathName]
}

/// The images a header pass keeps for a pick or a sort by date, one
/// compact row each and no header (a photo's header is read again when it
/// is looked at or used, as `Reopening` reads it): its path's bytes (all
/// the paths in one buffer), its stamp and the key it is ordered by; its
/// partners (a RAW photo, a Live Photo's movie) apart, as few photos have
/// any. About 32 bytes a photo besides its path's bytes, where a
/// `DatedImage` held 352 with its header and its path in an allocation of
/// its own (about 1.3 KB a photo at a pick's peak over 50,000 photos, with
/// what the pick made of them).
struct PhotoTable: Sendable {
    private var pathBytes: [UInt8] = []
    /// Where each path's bytes end in `pathBytes`.
    private var pathEnds: [Int] = []
    private(set) var stamps: [FileStamp] = []
    /// Each photo's key; `PhotoTable.none` where it has none.
    private(set) var keys: [Int64] = []
    /// The rows that have partners, in order, with them.
    private var partnerRows: [(row: Int, partners: [PathName])] = []

    /// A key no photo has: what a photo without one holds (no time is
    /// this far before 1800).
    static let none = Int64.min

    init() {}

    var count: Int { stamps.count }

    mutating func append(path: PathName, stamp: FileStamp, key: Int64?, partners: [PathName]) {
        if !partners.isEmpty { partnerRows.append((count, partners)) }
        pathBytes.append(contentsOf: path.bytes)
        pathEnds.append(pathBytes.count)
        stamps.append(stamp)
        keys.append(key ?? Self.none)
    }

    func path(_ row: Int) -> PathName {
        PathName(bytes: Array(pathBytes[(row == 0 ? 0 : pathEnds[row - 1])..<pathEnds[row]]))
    }

    func key(_ row: Int) -> Int64? { keys[row] == Self.none ? nil : keys[row] }

    func partners(_ row: Int) -> [PathName] {
        var (low, high) = (0, partnerRows.count)
        while low < high {
            let middle = (low + high) / 2
            if partnerRows[middle].row < row { low = middle + 1 } else { high = middle }
        }
        return low < partnerRows.count && partnerRows[low].row == row ? partnerRows[low].partners : []
    }

    func image(_ row: Int) -> ImageToOpen {
        ImageToOpen(path: path(row), stamp: stamps[row], partners: partners(row))
    }

    /// The rows in the order of their keys (a row without one counts as 0),
    /// ties by their own order; `reverse` turns the whole order round.
    func sortedRows(reverse: Bool) -> [Int] {
        var rows = Array(0..<count)
        rows.sort { a, b in (keys[a] == Self.none ? 0 : keys[a], a) < (keys[b] == Self.none ? 0 : keys[b], b) }
        if reverse { rows.reverse() }
        return rows
    }

    /// What its rows hold, in bytes (its arrays' room, the partners'
    /// paths left out): what a test bounds.
    var bytesHeld: Int {
        pathBytes.capacity + pathEnds.capacity * MemoryLayout<Int>.stride
            + stamps.capacity * MemoryLayout<FileStamp>.stride + keys.capacity * MemoryLayout<Int64>.stride
            + partnerRows.capacity * MemoryLayout<(row: Int, partners: [PathName])>.stride
    }
}
