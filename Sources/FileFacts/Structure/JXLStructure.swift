/// JPEG XL: a bare codestream, or the codestream in an ISO base media
/// container (boxes `JXL `, `ftyp`, then `jxlc`, or `jxlp` parts). Every
/// top-level box must fit in the file; the codestream's size header (the
/// first bits after its signature) is held to --max-pixels and, since
/// libvips' loader decodes the whole frame to memory at once, to the
/// buffer limit, before libjxl reads a byte.
enum JXLStructure {
    static let codestreamSignature: [UInt8] = [0xFF, 0x0A]
    static let containerSignature: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    static let maxTopLevelBoxes = 10_000
    /// Bytes of the codestream the size header can take: 2 of signature,
    /// at most 1 + 2 + 30 + 3 + 2 + 30 bits of header.
    static let headerBytes = 12

    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        let codestream: [UInt8]
        if let head = try file.read(0, min(containerSignature.count, file.size)), head == containerSignature {
            codestream = try containerCodestream(file)
        } else {
            guard let head = try file.read(0, min(headerBytes, file.size)), head.count >= 4 else {
                throw truncated("jxl", "a codestream cut short before its size header", file)
            }
            codestream = head
        }
        guard codestream.starts(with: codestreamSignature) else { throw corrupt("jxl", "no codestream signature") }
        let (width, height) = try size(Array(codestream.dropFirst(2)), file)
        try limits.pixels("jxl", width, height)
        // The loader's output buffer: at least 3 bytes a pixel (8-bit RGB).
        let bytes = product(width, height, 3)
        try limits.buffer("a jpeg xl image of \(width)x\(height)", bytes)
        return StructureCheck.Summary(bufferBytes: bytes)
    }

    /// The first bytes of the codestream of a container: the `jxlc` box's,
    /// or the first `jxlp` box's (after its 4-byte part index). Every box
    /// up to there, and that box, must fit in the file.
    private static func containerCodestream(_ file: FileBytes) throws -> [UInt8] {
        var offset = 0, count = 0
        while offset < file.size {
            guard let head = try file.read(offset, min(16, file.size - offset)), head.count >= 8 else {
                throw truncated("jxl", "a box header cut short at offset \(offset)", file)
            }
            let type = head.fourCC(4)
            var size = head.be32(0), header = 8
            if size == 1 {
                guard head.count >= 16 else { throw truncated("jxl", "box \(type) at offset \(offset)", file) }
                let large = head.be64(8)
                size = large > UInt64(Int.max) ? .max : Int(large)
                header = 16
            } else if size == 0 {
                size = file.size - offset  // the last box runs to the end of the file
            }
            guard size >= header else { throw corrupt("jxl", "box \(type) at offset \(offset) claims \(size) bytes") }
            guard size <= file.size - offset else {
                throw truncated("jxl", "box \(type) of \(size) bytes at offset \(offset)", file)
            }
            count += 1
            guard count <= maxTopLevelBoxes else { throw corrupt("jxl", "more than \(maxTopLevelBoxes) boxes") }
            if type == "jxlc" || type == "jxlp" {
                let skip = type == "jxlp" ? 4 : 0
                let available = size - header - skip
                guard available >= 4, let bytes = try file.read(offset + header + skip, min(headerBytes, available)) else {
                    throw truncated("jxl", "a \(type) box of \(size) bytes too short for its size header", file)
                }
                return bytes
            }
            offset += size
        }
        throw corrupt("jxl", "a container with no codestream box")
    }

    /// The image's size from the codestream's SizeHeader (the bits after
    /// the signature, least significant first).
    static func size(_ bytes: [UInt8], _ file: FileBytes) throws -> (width: Int, height: Int) {
        var bits = BitReader(bytes: bytes)
        func u32() throws -> Int {
            let widths = [9, 13, 18, 30]
            return try bits.read(widths[try bits.read(2)]) + 1
        }
        let small = try bits.read(1) == 1
        let height = small ? (try bits.read(5) + 1) * 8 : try u32()
        let ratio = try bits.read(3)
        let width: Int
        if ratio == 0 {
            width = small ? (try bits.read(5) + 1) * 8 : try u32()
        } else {
            let ratios = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]
            let (numerator, denominator) = ratios[ratio - 1]
            width = height * numerator / denominator
        }
        return (width, height)
    }
}

/// Reads bits least significant first, as JPEG XL's headers are written.
struct BitReader {
    let bytes: [UInt8]
    var position = 0

    mutating func read(_ count: Int) throws -> Int {
        var value = 0
        for index in 0..<count {
            let bit = position + index
            guard bit / 8 < bytes.count else { throw corrupt("jxl", "a size header cut short") }
            value |= Int(bytes[bit / 8] >> UInt8(bit % 8) & 1) << index
        }
        position += count
        return value
    }
}
