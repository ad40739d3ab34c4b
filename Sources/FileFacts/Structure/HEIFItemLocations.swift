/// The `iloc` box: where each item's data is. libheif reads an item's
/// extents into one buffer, so each extent must lie in the file and the
/// table itself must fit in its box.
enum ItemLocations {
    static func check(_ bytes: [UInt8], _ box: BMFFBox, _ file: FileBytes, maxItems: Int) throws {
        let end = box.start + box.size
        var at = box.payload
        func read(_ size: Int) throws -> Int {
            guard size == 0 || at + size <= end else {
                throw corrupt("heif", "the iloc table runs past its \(box.size)-byte box")
            }
            defer { at += size }
            switch size {
            case 0: return 0
            case 2: return bytes.be16(at)
            case 4: return bytes.be32(at)
            case 8:
                let value = bytes.be64(at)
                return value > UInt64(Int.max) ? .max : Int(value)
            default: throw corrupt("heif", "an iloc field of \(size) bytes")
            }
        }
        func byte() throws -> Int {
            guard at < end else { throw corrupt("heif", "the iloc table runs past its \(box.size)-byte box") }
            defer { at += 1 }
            return Int(bytes[at])
        }
        let version = try byte()
        at += 3  // flags
        guard version <= 2 else { throw corrupt("heif", "iloc version \(version)") }
        let sizes = try byte(), more = try byte()
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseSize = more >> 4
        let indexSize = version == 0 ? 0 : more & 15
        let items = try read(version < 2 ? 2 : 4)
        guard items <= maxItems else { throw corrupt("heif", "iloc lists \(items) items") }
        for _ in 0..<items {
            let item = try read(version < 2 ? 2 : 4)
            let method = version == 0 ? 0 : try read(2) & 15
            let reference = try read(2)
            let base = try read(baseSize)
            let extents = try read(2)
            // Each extent takes at least a byte of the table: a count larger
            // than what is left of the box is a claim, not a table.
            guard extents <= end - at else {
                throw corrupt("heif", "item \(item) claims \(extents) extents in a \(box.size)-byte iloc box")
            }
            var total = 0
            for _ in 0..<extents {
                _ = try read(indexSize)
                let offset = try read(offsetSize), length = try read(lengthSize)
                guard method == 0, reference == 0 else { continue }
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow, file.contains(start, length) else {
                    throw truncated("heif", "item \(item) has an extent of \(length) bytes at offset \(start)", file)
                }
                total = total.addingReportingOverflow(length).overflow ? .max : total + length
            }
            guard total <= file.size else {
                throw truncated("heif", "item \(item) of \(total) bytes", file)
            }
        }
    }
}
