/// WebP: a RIFF container of chunks (VP8, VP8L, or VP8X with ALPH, ANIM,
/// ANMF...). The RIFF size, each chunk's size and each frame's size must
/// agree with the file and the canvas; libwebp sizes its buffers by them.
enum WebPStructure {
    static let maxChunks = 20_000

    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        guard let head = try file.read(0, 12) else { throw truncated("webp", "a header cut short", file) }
        guard head.fourCC(0) == "RIFF", head.fourCC(8) == "WEBP" else { throw corrupt("webp", "no RIFF WEBP header") }
        let riffSize = head.le32(4)
        guard riffSize >= 12 else { throw corrupt("webp", "a RIFF size of \(riffSize) bytes") }
        guard file.contains(8, riffSize) else {
            throw truncated("webp", "a RIFF of \(riffSize) bytes", file)
        }
        let end = 8 + riffSize
        var canvas: (width: Int, height: Int)?
        var summary = StructureCheck.Summary()
        var offset = 12, chunks = 0
        while offset + 8 <= end {
            guard let chunk = try file.read(offset, 8) else { throw truncated("webp", "a chunk at \(offset)", file) }
            let type = chunk.fourCC(0), size = chunk.le32(4)
            guard size <= end - offset - 8 else {
                throw truncated("webp", "chunk \(type) of \(size) bytes at offset \(offset) (the RIFF ends at \(end))", file)
            }
            chunks += 1
            guard chunks <= maxChunks else { throw corrupt("webp", "more than \(maxChunks) chunks") }
            let data = offset + 8
            switch type {
            case "VP8X":
                guard size >= 10, chunks == 1, let bytes = try file.read(data, 10) else {
                    throw corrupt("webp", "a VP8X chunk of \(size) bytes, chunk \(chunks)")
                }
                let width = bytes.le24(4) + 1, height = bytes.le24(7) + 1
                try limits.pixels("webp canvas", width, height)
                canvas = (width, height)
                if bytes[0] & 0x02 != 0 {  // animated: frames are composed on a full canvas
                    summary.bufferBytes = product(width, height, 4)
                    try limits.buffer("an animated webp canvas of \(width)x\(height)", summary.bufferBytes)
                }
            case "ANMF":
                guard size >= 16, let bytes = try file.read(data, 16) else { throw corrupt("webp", "an ANMF of \(size) bytes") }
                try inside(canvas, "frame", x: bytes.le24(0) * 2, y: bytes.le24(3) * 2,
                           width: bytes.le24(6) + 1, height: bytes.le24(9) + 1, limits)
            case "VP8 ", "VP8L":
                let size = try frameSize(file, type: type, at: data, size: size)
                try inside(canvas, "\(type.trimmingCharacters()) image", x: 0, y: 0,
                           width: size.width, height: size.height, limits)
            default: break
            }
            offset = data + size + (size & 1)
        }
        return summary
    }

    /// The size a VP8 key frame or a VP8L image declares.
    private static func frameSize(_ file: FileBytes, type: String, at data: Int, size: Int) throws -> (width: Int, height: Int) {
        if type == "VP8L" {
            guard size >= 5, let bytes = try file.read(data, 5), bytes[0] == 0x2F else {
                throw corrupt("webp", "a VP8L chunk without its signature")
            }
            let bits = bytes.le32(1)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        guard size >= 10, let bytes = try file.read(data, 10), bytes[3] == 0x9D, bytes[4] == 0x01, bytes[5] == 0x2A else {
            throw corrupt("webp", "a VP8 chunk without a key frame")
        }
        return (bytes.le16(6) & 0x3FFF, bytes.le16(8) & 0x3FFF)
    }

    /// A frame must lie on the canvas (when there is one) and within the limits.
    private static func inside(_ canvas: (width: Int, height: Int)?, _ what: String, x: Int, y: Int,
                               width: Int, height: Int, _ limits: Limits) throws {
        try limits.pixels("webp \(what)", width, height)
        guard let canvas else { return }
        guard x + width <= canvas.width, y + height <= canvas.height else {
            throw corrupt("webp", "\(what) of \(width)x\(height) at (\(x),\(y)) lies outside the "
                          + "\(canvas.width)x\(canvas.height) canvas")
        }
    }
}

private extension String {
    func trimmingCharacters() -> String { String(self.filter { $0 != " " }) }
}
