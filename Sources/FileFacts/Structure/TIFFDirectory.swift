/// The parts of a TIFF file the structure check reads: the byte order, the
/// chain of image file directories (IFDs) and their entries. Classic TIFF
/// and BigTIFF differ only in the widths of counts and offsets.
struct TIFFLayout {
    let little: Bool
    let big: Bool
    var entrySize: Int { big ? 20 : 12 }
    var countSize: Int { big ? 8 : 2 }
    var offsetSize: Int { big ? 8 : 4 }

    func int(_ bytes: [UInt8], _ at: Int, _ size: Int) -> Int {
        switch size {
        case 1: return Int(bytes[at])
        case 2: return little ? bytes.le16(at) : bytes.be16(at)
        case 4: return little ? bytes.le32(at) : bytes.be32(at)
        default:
            let value = little ? bytes.le64(at) : bytes.be64(at)
            return value > UInt64(Int.max) ? .max : Int(value)
        }
    }
}

/// One IFD entry: a tag, its type, how many values, and where they are.
struct TIFFEntry {
    let tag: Int
    let type: Int
    let count: Int
    /// The entry's value field: the values themselves when they fit.
    let field: [UInt8]

    /// Bytes per value of each TIFF type (0 for a type libtiff ignores).
    static func size(of type: Int) -> Int {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12, 16, 17, 18: return 8
        default: return 0
        }
    }

    var valueSize: Int { Self.size(of: type) }
    var dataSize: Int { product(count, valueSize) }
}

struct TIFFDirectory {
    let offset: Int
    let entries: [Int: TIFFEntry]
    let next: Int

    /// The most entries one IFD may have: libtiff's own directories have a
    /// few dozen; a count of 65535 is a claim, not a directory.
    static let maxEntries = 4096

    /// Reads the IFD at `offset`; every entry's values must lie in the file.
    init(_ file: FileBytes, _ layout: TIFFLayout, at offset: Int) throws {
        guard let countBytes = try file.read(offset, layout.countSize) else {
            throw truncated("tiff", "an IFD at offset \(offset)", file)
        }
        let count = layout.int(countBytes, 0, layout.countSize)
        guard count > 0, count <= Self.maxEntries else {
            throw corrupt("tiff", "the IFD at offset \(offset) claims \(count) entries")
        }
        let tableSize = count * layout.entrySize + layout.offsetSize
        guard let table = try file.read(offset + layout.countSize, tableSize) else {
            throw truncated("tiff", "an IFD of \(count) entries at offset \(offset)", file)
        }
        var entries: [Int: TIFFEntry] = [:]
        for index in 0..<count {
            let at = index * layout.entrySize
            let fieldAt = at + 4 + layout.offsetSize
            let entry = TIFFEntry(tag: layout.int(table, at, 2), type: layout.int(table, at + 2, 2),
                                  count: layout.int(table, at + 4, layout.offsetSize),
                                  field: Array(table[fieldAt..<fieldAt + layout.offsetSize]))
            if entry.valueSize > 0 && entry.dataSize > layout.offsetSize {
                let dataOffset = layout.int(entry.field, 0, layout.offsetSize)
                guard file.contains(dataOffset, entry.dataSize) else {
                    throw truncated("tiff", "tag \(entry.tag) of \(entry.count) values (\(entry.dataSize) bytes) "
                                    + "at offset \(dataOffset)", file)
                }
            }
            entries[entry.tag] = entry
        }
        self.offset = offset
        self.entries = entries
        self.next = layout.int(table, count * layout.entrySize, layout.offsetSize)
    }

    /// The first value of a tag, if present and numeric.
    func value(_ tag: Int, _ file: FileBytes, _ layout: TIFFLayout) throws -> Int? {
        var first: Int?
        try forEach(tag, file, layout, limit: 1) { _, value in first = value }
        return first
    }

    /// Calls `body` with each value of a tag (index, value), reading values
    /// stored outside the entry 64 KiB at a time.
    func forEach(_ tag: Int, _ file: FileBytes, _ layout: TIFFLayout, from: Int = 0, limit: Int = .max,
                 _ body: (Int, Int) throws -> Void) throws {
        guard let entry = entries[tag], [1, 3, 4, 16].contains(entry.type) else { return }
        let size = entry.valueSize
        let total = min(entry.count, limit)
        if entry.dataSize <= layout.offsetSize {
            for index in min(from, total)..<total { try body(index, layout.int(entry.field, index * size, size)) }
            return
        }
        let base = layout.int(entry.field, 0, layout.offsetSize)
        let perRead = (64 << 10) / size
        var index = min(from, total)
        while index < total {
            let n = min(perRead, total - index)
            guard let bytes = try file.read(base + index * size, n * size) else {
                throw truncated("tiff", "tag \(tag) at offset \(base)", file)
            }
            for k in 0..<n { try body(index + k, layout.int(bytes, k * size, size)) }
            index += n
        }
    }

    /// The offsets of the SubIFDs this IFD points to (tag 330).
    func subIFDs(_ file: FileBytes, _ layout: TIFFLayout) throws -> [Int] {
        var offsets: [Int] = []
        try forEach(330, file, layout, limit: 256) { _, value in offsets.append(value) }
        if let entry = entries[330], entry.type == 13 || entry.type == 18 {
            let size = entry.valueSize
            if entry.dataSize <= layout.offsetSize {
                for index in 0..<min(entry.count, 256) { offsets.append(layout.int(entry.field, index * size, size)) }
            } else if let bytes = try file.read(layout.int(entry.field, 0, layout.offsetSize), min(entry.count, 256) * size) {
                for index in 0..<min(entry.count, 256) { offsets.append(layout.int(bytes, index * size, size)) }
            }
        }
        return offsets
    }
}
