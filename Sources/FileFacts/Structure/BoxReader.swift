/// Reads big-endian fields of one box, never past its end.
struct Reader {
    let bytes: [UInt8]
    var at: Int
    let end: Int

    init(_ bytes: [UInt8], _ box: BMFFBox) {
        self.bytes = bytes
        self.at = box.payload
        self.end = box.start + box.size
    }

    mutating func u8() throws -> Int { try uint(1) }

    mutating func uint(_ size: Int) throws -> Int {
        guard size >= 0, size <= 8, at + size <= end else { throw corrupt("heif", "a table runs past its box") }
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[at + i]) }
        at += size
        guard value <= UInt64(Int.max) else { throw corrupt("heif", "a field out of range") }
        return Int(value)
    }

    mutating func fourCC() throws -> String {
        guard at + 4 <= end else { throw corrupt("heif", "a table runs past its box") }
        defer { at += 4 }
        return bytes.fourCC(at)
    }
}

/// An `hvcC` box's payload: its parameter sets (each after a 4-byte
/// length, as a HEIF item's NAL units are), bit depth and chroma format.
enum HEVCConfiguration {
    static func parse(_ payload: [UInt8]) -> (parameterSets: [UInt8], bits: Int, chroma: Int)? {
        guard payload.count >= 23, payload[21] & 3 == 3 else { return nil }  // NAL lengths of 4 bytes only
        let chroma = Int(payload[16] & 3), bits = Int(payload[17] & 7) + 8
        var at = 23, sets: [UInt8] = []
        for _ in 0..<Int(payload[22]) {
            guard at + 3 <= payload.count else { return nil }
            let count = payload.be16(at + 1)
            at += 3
            for _ in 0..<count {
                guard at + 2 <= payload.count else { return nil }
                let length = payload.be16(at)
                guard at + 2 + length <= payload.count else { return nil }
                sets += [0, 0, UInt8(length >> 8), UInt8(length & 0xFF)] + payload[at + 2..<at + 2 + length]
                at += 2 + length
            }
        }
        return sets.isEmpty ? nil : (sets, bits, chroma)
    }
}
