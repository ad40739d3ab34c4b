/// HEIF and AVIF: ISO base media boxes. Every box must fit in its parent
/// and the file; the `meta` box's item tables (iinf, iloc, ipma) must fit
/// in their boxes and point into the file; every `ispe` (an image's
/// extent) is held to --max-pixels and, for what libheif decodes whole,
/// to the buffer limit.
enum HEIFStructure {
    static let maxTopLevelBoxes = 10_000
    /// libheif's later versions stop at 1000 items; a file needs a few
    /// hundred at most (a grid of tiles).
    static let maxItems = 4096
    /// A meta box is read whole: tables of a few thousand items fit easily.
    static let maxMetaBytes = 16 << 20

    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        var offset = 0, count = 0
        var summary = StructureCheck.Summary()
        var sawMeta = false
        while offset < file.size {
            guard let head = try file.read(offset, min(16, file.size - offset)), head.count >= 8 else {
                throw truncated("heif", "a box header cut short at offset \(offset)", file)
            }
            let box = try BMFFBox(head, at: offset, parentEnd: file.size, file: file)
            count += 1
            guard count <= maxTopLevelBoxes else { throw corrupt("heif", "more than \(maxTopLevelBoxes) boxes") }
            if box.type == "meta" {
                guard box.size <= maxMetaBytes, let bytes = try file.read(box.start, box.size) else {
                    throw corrupt("heif", "a meta box of \(box.size) bytes")
                }
                summary = try meta(bytes, file, limits)
                sawMeta = true
            }
            offset = box.start + box.size
        }
        guard sawMeta else { throw corrupt("heif", "no meta box") }
        return summary
    }

    /// The children of meta (a full box: 4 bytes of version and flags first).
    private static func meta(_ bytes: [UInt8], _ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        var summary = StructureCheck.Summary()
        let header = try BMFFBox(bytes, local: 0, at: 0, parentEnd: bytes.count, file: file)
        for child in try BMFFBox.children(bytes, from: header.payload + 4, to: bytes.count, file: file) {
            switch child.type {
            case "iinf":
                guard child.size >= child.payload - child.start + 6 else { throw corrupt("heif", "an iinf box too short") }
                let version = bytes[child.payload]
                let items = version == 0 ? bytes.be16(child.payload + 4) : child.size >= 16 ? bytes.be32(child.payload + 4) : .max
                // Each item entry (infe) is a box of at least 12 bytes.
                guard items <= maxItems, product(items, 12) <= child.start + child.size - child.payload else {
                    throw corrupt("heif", "iinf claims \(items) items in a \(child.size)-byte box")
                }
            case "iloc":
                try ItemLocations.check(bytes, child, file, maxItems: maxItems)
            case "iprp":
                for property in try BMFFBox.children(bytes, from: child.payload, to: child.start + child.size, file: file)
                where property.type == "ipco" {
                    let end = property.start + property.size
                    for item in try BMFFBox.children(bytes, from: property.payload, to: end, file: file) where item.type == "ispe" {
                        guard item.size >= item.payload - item.start + 12 else { throw corrupt("heif", "an ispe box too short") }
                        let width = bytes.be32(item.payload + 4), height = bytes.be32(item.payload + 8)
                        try limits.pixels("heif image", width, height)
                        // libheif decodes an image whole: planes, then RGB.
                        let decoded = product(width, height, 4)
                        try limits.buffer("a heif image of \(width)x\(height)", decoded)
                        summary.bufferBytes = max(summary.bufferBytes, decoded)
                    }
                }
            default: break
            }
        }
        return summary
    }
}

/// One box: where it starts, its whole size, and where its payload begins.
struct BMFFBox {
    let type: String
    let start: Int
    let size: Int
    let payload: Int

    /// Reads the box header at `bytes[local]`; `at` and `parentEnd` are in
    /// the caller's coordinates (the file's, or the meta box's).
    init(_ bytes: [UInt8], local: Int = 0, at: Int, parentEnd: Int, file: FileBytes) throws {
        guard local + 8 <= bytes.count else { throw truncated("heif", "a box header at offset \(at)", file) }
        type = bytes.fourCC(local + 4)
        var size = bytes.be32(local)
        var header = 8
        if size == 1 {
            guard local + 16 <= bytes.count else { throw truncated("heif", "box \(type) at offset \(at)", file) }
            let large = bytes.be64(local + 8)
            size = large > UInt64(Int.max) ? .max : Int(large)
            header = 16
        } else if size == 0 {
            size = parentEnd - at
        }
        guard size >= header else { throw corrupt("heif", "box \(type) at offset \(at) claims \(size) bytes") }
        guard size <= parentEnd - at else {
            throw truncated("heif", "box \(type) of \(size) bytes at offset \(at) (its parent ends at \(parentEnd))", file)
        }
        self.start = at
        self.size = size
        self.payload = at + header
    }

    /// The boxes in `bytes[from..<to]`, each within it.
    static func children(_ bytes: [UInt8], from: Int, to: Int, file: FileBytes) throws -> [BMFFBox] {
        var boxes: [BMFFBox] = []
        var offset = from
        while offset < to {
            guard offset + 8 <= to else { throw truncated("heif", "a box header at offset \(offset) of the meta box", file) }
            let box = try BMFFBox(bytes, local: offset, at: offset, parentEnd: to, file: file)
            boxes.append(box)
            guard boxes.count <= HEIFStructure.maxItems * 4 else { throw corrupt("heif", "more than \(boxes.count) boxes") }
            offset = box.start + box.size
        }
        return boxes
    }
}
