import CollageTestSupport

/// Fuzzing of structure, not only of bytes: a PNG chunk's length, a TIFF
/// IFD's entry count or a strip's offset and size, a GIF's screen or frame
/// size, a WebP's RIFF or chunk size, a JPEG frame made progressive and
/// huge, each set to a value a decoder would trust and allocate by.
enum StructureMutation {
    static let extremes = [0, 1, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFF0, 1 << 30, 1 << 24]

    /// Mutates `bytes` in place; a label saying what was changed.
    static func apply(_ bytes: inout [UInt8], _ random: inout SplitMix64) -> String {
        let value = extremes[random.below(extremes.count)]
        guard bytes.count > 16 else { return "short" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            let chunks = Fixture.pngChunks(bytes)
            guard bytes.count >= 33, !chunks.isEmpty else { return "pngshort" }
            if random.below(3) == 0 {  // a text chunk claiming `value` bytes, after IHDR
                bytes.insert(contentsOf: be32(value) + Array("tEXtab".utf8), at: 33)
                return "pngtext\(value)"
            }
            // An earlier mutation may have cut the file inside a chunk.
            guard let chunk = chunks.isEmpty ? nil : chunks[random.below(chunks.count)],
                  chunk.offset + 4 <= bytes.count else { return "pngshort" }
            bytes.replaceSubrange(chunk.offset..<chunk.offset + 4, with: be32(value))
            return "pnglen\(chunk.type)\(value)"
        }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) { return tiff(&bytes, value, &random) }
        if bytes.starts(with: Array("GIF8".utf8)) {
            let at = random.below(2) == 0 ? 6 : (gifDescriptor(bytes) ?? 6) + 5
            guard at + 4 <= bytes.count else { return "gifshort" }
            bytes.replaceSubrange(at..<at + 4, with: le16(value) + le16(value >> 3))
            return "gifsize\(at)-\(value)"
        }
        if bytes.starts(with: Array("RIFF".utf8)) {
            let at = [4, 16, 26][random.below(3)]
            guard at + 4 <= bytes.count else { return "riffshort" }
            bytes.replaceSubrange(at..<at + 4, with: le32(value))
            return "riff\(at)-\(value)"
        }
        if bytes.starts(with: [0xFF, 0xD8]), let sof = Fixture.sofOffset(bytes), sof + 9 <= bytes.count {
            bytes[sof + 1] = 0xC2
            bytes = Fixture.jpeg(bytes, claiming: 8000 + random.below(57000), 8000 + random.below(57000))
            return "progressive"
        }
        return "none"
    }

    /// A TIFF (little-endian, as libvips writes it here): the first IFD's
    /// entry count, or the value of one of its size or offset entries.
    private static func tiff(_ bytes: inout [UInt8], _ value: Int, _ random: inout SplitMix64) -> String {
        let ifd = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard ifd + 2 <= bytes.count else { return "tiffshort" }
        let count = Int(bytes[ifd]) | Int(bytes[ifd + 1]) << 8
        if random.below(4) == 0 {
            bytes.replaceSubrange(ifd..<ifd + 2, with: le16(value))
            return "ifdcount\(value & 0xFFFF)"
        }
        let wanted: Set<Int> = [256, 257, 273, 278, 279, 322, 323, 324, 325]
        var entries: [Int] = []
        for index in 0..<count where ifd + 2 + index * 12 + 12 <= bytes.count {
            let at = ifd + 2 + index * 12
            if wanted.contains(Int(bytes[at]) | Int(bytes[at + 1]) << 8) { entries.append(at) }
        }
        guard !entries.isEmpty else { return "tiffnone" }
        let at = entries[random.below(entries.count)]
        let tag = Int(bytes[at]) | Int(bytes[at + 1]) << 8
        let type = Int(bytes[at + 2]) | Int(bytes[at + 3]) << 8
        let entryCount = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16
        let size = type == 3 ? 2 : 4
        var target = at + 8  // the value itself, or the first of the values it points to
        if entryCount * size > 4 {
            target = Int(bytes[at + 8]) | Int(bytes[at + 9]) << 8 | Int(bytes[at + 10]) << 16 | Int(bytes[at + 11]) << 24
            if random.below(2) == 0 { target = at + 4 }  // or the count of values
        }
        guard target + 4 <= bytes.count else { return "tiffshort" }
        bytes.replaceSubrange(target..<target + (target == at + 4 ? 4 : size),
                              with: Array(le32(value).prefix(target == at + 4 ? 4 : size)))
        return "tiff\(tag)-\(value)"
    }

    /// The offset of a GIF's first image descriptor (after the global colour table).
    private static func gifDescriptor(_ bytes: [UInt8]) -> Int? {
        var at = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
        while at < bytes.count {
            switch bytes[at] {
            case 0x2C: return at
            case 0x21:
                at += 2
                while at < bytes.count, bytes[at] != 0 { at += Int(bytes[at]) + 1 }
                at += 1
            default: return nil
            }
        }
        return nil
    }
}
