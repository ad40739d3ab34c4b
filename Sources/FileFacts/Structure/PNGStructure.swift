/// PNG: a signature, then chunks (length, type, data, CRC) from IHDR to
/// IEND. libpng allocates an ancillary chunk's declared length before it
/// reads the data, so every length is held to what is left of the file.
enum PNGStructure {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// More chunks than any writer makes (libpng itself keeps 1000 unknown
    /// ones); each one costs the decoder a little memory and time.
    static let maxAncillaryChunks = 4096
    static let maxChunks = 200_000

    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        guard try file.read(0, 8) == signature else { throw corrupt("png", "no PNG signature") }
        var summary = StructureCheck.Summary()
        // Chunk headers through 64 KiB blocks: encoders write IDAT in 4 or
        // 8 KiB chunks, a hundred headers in a screenshot.
        var cursor = BlockCursor(file, at: 8)
        var chunks = 0, ancillary = 0
        while true {
            let offset = cursor.offset
            guard let head = try cursor.bytes(8) else {
                if offset == file.size && chunks > 1 { return summary }  // no IEND: libpng decides
                throw truncated("png", "a chunk header cut short at offset \(offset)", file)
            }
            let length = head.be32(0)
            let type = head.fourCC(4)
            guard head[4..<8].allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else {
                throw corrupt("png", "chunk type '\(type)' at offset \(offset) is not four letters")
            }
            guard length <= 0x7FFF_FFFF else {
                throw corrupt("png", "chunk \(type) claims \(length) bytes, over the PNG limit of 2^31-1")
            }
            guard file.contains(offset, 12 + length) else {
                throw truncated("png", "chunk \(type) of \(length) bytes at offset \(offset)", file)
            }
            if chunks == 0 {
                guard type == "IHDR", length == 13, let ihdr = try cursor.bytes(13) else {
                    throw corrupt("png", "the first chunk is \(type) of \(length) bytes, not a 13-byte IHDR")
                }
                summary.bufferBytes = try header(ihdr, limits)
            }
            chunks += 1
            if type == "IEND" { return summary }
            if type != "IDAT" { ancillary += 1 }
            if ancillary > maxAncillaryChunks || chunks > maxChunks {
                throw corrupt("png", "more than \(ancillary > maxAncillaryChunks ? maxAncillaryChunks : maxChunks) chunks")
            }
            cursor.skip(offset + 12 + length - cursor.offset)
        }
    }

    /// IHDR's fields; the buffer an interlaced image needs (libvips decodes
    /// an interlaced PNG whole), else 0.
    private static func header(_ ihdr: [UInt8], _ limits: Limits) throws -> Int {
        let width = ihdr.be32(0), height = ihdr.be32(4)
        let depth = Int(ihdr[8]), colour = Int(ihdr[9])
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            throw corrupt("png", "IHDR size \(width)x\(height)")
        }
        let channels: Int
        switch (colour, depth) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (0, 16): channels = 1
        case (2, 8), (2, 16): channels = 3
        case (3, 1), (3, 2), (3, 4), (3, 8): channels = 3
        case (4, 8), (4, 16): channels = 2
        case (6, 8), (6, 16): channels = 4
        default: throw corrupt("png", "IHDR colour type \(colour) with bit depth \(depth)")
        }
        guard ihdr[10] == 0, ihdr[11] == 0, ihdr[12] <= 1 else {
            throw corrupt("png", "IHDR compression \(ihdr[10]), filter \(ihdr[11]), interlace \(ihdr[12])")
        }
        try limits.pixels("png", width, height)
        guard ihdr[12] == 1 else { return 0 }
        let bytes = product(width, height, channels, depth == 16 ? 2 : 1)
        try limits.buffer("interlaced png of \(width)x\(height)", bytes)
        return bytes
    }
}
