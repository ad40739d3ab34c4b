/// GIF: a logical screen, then extension and image blocks, each a run of
/// length-prefixed sub-blocks, up to a trailer. libnsgif allocates a canvas
/// of the whole screen (4 bytes a pixel) and keeps a record per frame.
enum GIFStructure {
    /// More frames than an animation worth a tile has.
    static let maxFrames = 10_000

    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        guard let head = try file.read(0, 13) else { throw truncated("gif", "a header cut short", file) }
        guard head.fourCC(0) == "GIF8" else { throw corrupt("gif", "no GIF signature") }
        let width = head.le16(6), height = head.le16(8)
        guard width > 0, height > 0 else { throw corrupt("gif", "a logical screen of \(width)x\(height)") }
        try limits.pixels("gif", width, height)
        let canvas = product(width, height, 4)
        try limits.buffer("a gif screen of \(width)x\(height)", canvas)
        var cursor = BlockCursor(file, at: 13)
        if head[10] & 0x80 != 0 { cursor.skip(3 << (Int(head[10] & 7) + 1)) }
        var frames = 0
        while let introducer = try cursor.byte() {
            switch introducer {
            case 0x3B:
                return StructureCheck.Summary(bufferBytes: canvas)
            case 0x21:
                guard try cursor.byte() != nil else { break }
                try skipSubBlocks(&cursor)
            case 0x2C:
                guard let descriptor = try cursor.bytes(9) else { break }
                let left = descriptor.le16(0), top = descriptor.le16(2)
                let frameWidth = descriptor.le16(4), frameHeight = descriptor.le16(6)
                guard left + frameWidth <= width, top + frameHeight <= height else {
                    throw corrupt("gif", "frame \(frames + 1) of \(frameWidth)x\(frameHeight) at (\(left),\(top)) "
                                  + "lies outside the \(width)x\(height) screen")
                }
                frames += 1
                guard frames <= maxFrames else { throw corrupt("gif", "more than \(maxFrames) frames") }
                if descriptor[8] & 0x80 != 0 { cursor.skip(3 << (Int(descriptor[8] & 7) + 1)) }
                guard try cursor.byte() != nil else { break }  // LZW minimum code size
                try skipSubBlocks(&cursor)
            default:
                // libnsgif stops at an unknown block; what came before is used.
                guard frames > 0 else {
                    throw corrupt("gif", "block 0x\(String(introducer, radix: 16)) at offset \(cursor.offset - 1)")
                }
                return StructureCheck.Summary(bufferBytes: canvas)
            }
        }
        // A GIF cut short shows the frames it has; with none it has nothing.
        guard frames > 0 else { throw truncated("gif", "no complete frame", file) }
        return StructureCheck.Summary(bufferBytes: canvas)
    }

    /// Skips sub-blocks up to and including the empty one that ends them.
    private static func skipSubBlocks(_ cursor: inout BlockCursor) throws {
        while let size = try cursor.byte(), size > 0 {
            cursor.skip(Int(size))
        }
    }
}
