/// JPEG: marker segments up to the frame header (SOF). A progressive
/// frame makes libjpeg allocate every coefficient of the image (2 bytes
/// each) before it reads a scan, so a 700-byte file claiming 16000x16000
/// cost 800 MB. Only the segments before the SOF are read.
enum JPEGStructure {
    static let maxSegments = 10_000

    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        guard try file.read(0, 2) == [0xFF, 0xD8] else { throw corrupt("jpeg", "no start of image") }
        var offset = 2, segments = 0
        while let marker = try file.read(offset, 2) {
            guard marker[0] == 0xFF else { return StructureCheck.Summary() }  // libjpeg resynchronises
            if marker[1] == 0xFF { offset += 1; continue }  // fill byte
            if (0xD0...0xD8).contains(marker[1]) || marker[1] == 0x01 { offset += 2; continue }
            guard let lengthBytes = try file.read(offset + 2, 2) else { break }
            let length = lengthBytes.be16(0)
            segments += 1
            guard length >= 2, segments <= maxSegments else {
                throw corrupt("jpeg", "segment 0x\(String(marker[1], radix: 16)) of length \(length) at offset \(offset)")
            }
            if [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF].contains(marker[1]) {
                guard let frame = try file.read(offset + 4, max(0, length - 2)), frame.count >= 6 else {
                    throw truncated("jpeg", "a frame header at offset \(offset)", file)
                }
                return try self.frame(frame, progressive: [0xC2, 0xC6, 0xCA, 0xCE].contains(marker[1]), limits)
            }
            if marker[1] == 0xDA || marker[1] == 0xD9 { break }  // a scan or the end before any frame
            offset += 2 + length
        }
        throw truncated("jpeg", "no frame header", file)
    }

    /// The frame's size; for a progressive frame, its coefficient buffers.
    private static func frame(_ frame: [UInt8], progressive: Bool, _ limits: Limits) throws -> StructureCheck.Summary {
        let height = frame.be16(1), width = frame.be16(3), components = Int(frame[5])
        guard width > 0, height > 0 else { return StructureCheck.Summary() }  // libjpeg decides (DNL)
        try limits.pixels("jpeg", width, height)
        let sized = StructureCheck.Summary(width: width, height: height)
        guard progressive, components > 0, frame.count >= 6 + 3 * components else { return sized }
        var factors: [(h: Int, v: Int)] = []
        for index in 0..<components {
            let sampling = frame[6 + 3 * index + 1]
            factors.append((max(1, Int(sampling >> 4)), max(1, Int(sampling & 15))))
        }
        let hMax = factors.map(\.h).max()!, vMax = factors.map(\.v).max()!
        var bytes = 0
        for factor in factors {
            let columns = (width * factor.h + hMax * 8 - 1) / (hMax * 8)
            let rows = (height * factor.v + vMax * 8 - 1) / (vMax * 8)
            bytes += product(columns, rows, 64, 2)
        }
        try limits.buffer("a progressive jpeg of \(width)x\(height)", bytes)
        return StructureCheck.Summary(bufferBytes: bytes, width: width, height: height)
    }
}
