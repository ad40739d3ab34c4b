import FileFacts
import Vips

/// CPNG, the plain-PNG decoder `--diff` reads screenshots with, against
/// libvips on the same bytes. Invariants: CPNG returns or declines, never
/// throws but for memory; what it decodes, libvips (strict, as a run
/// decodes) decodes too, to the same size and the same pixels, byte for
/// byte. What it declines is libvips' alone, whatever libvips says.
/// Checksums are made right before both read the input (`repaired`), so
/// that mutations reach the rows and their filters, not only the checks.
enum PlainPNGTarget {
    static let decode = FuzzTarget("png-plain", maxLength: 16384, mallocLimitMB: 64) { bytes in
        ScratchFile.first.holding(repaired(bytes)) { descriptor in
            let fast: FullPicture?
            do {
                fast = try ImageFile.plainPNG(descriptor, maxBuffer: 16 << 20)
            } catch {
                return "CPNG threw: \(error)"
            }
            guard let fast else { return nil }
            let slow: FullPicture
            do {
                slow = try ImageFile.full(descriptor: descriptor, plainFast: false)
            } catch {
                return "CPNG decoded \(fast.width)x\(fast.height) where libvips says: \(error)"
            }
            guard fast.width == slow.width, fast.height == slow.height else {
                return "CPNG decoded \(fast.width)x\(fast.height), libvips \(slow.width)x\(slow.height)"
            }
            guard let left = try? fast.pixels(), let right = try? slow.pixels() else { return "pixels not readable" }
            let same = left.withUnsafeBytes { l in right.withUnsafeBytes { r in l.elementsEqual(r) } }
            return same ? nil : "CPNG's pixels differ from libvips' at \(fast.width)x\(fast.height)"
        }
    }

    /// `bytes` with the Adler-32 of an image stream made only of stored
    /// blocks (the seeds') recomputed, and then every chunk's CRC.
    static func repaired(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        var chunks: [(start: Int, length: Int, data: Bool)] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - offset - 12 else { break }
            chunks.append((offset, length, bytes[offset + 4..<offset + 8].elementsEqual("IDAT".utf8)))
            offset += 12 + length
        }
        // Where each byte of the image stream is in the file.
        let places = chunks.filter(\.data).flatMap { ($0.start + 8)..<($0.start + 8 + $0.length) }
        if let end = storedEnd(places.map { bytes[$0] }), end.at + 4 <= places.count {
            for (i, byte) in [24, 16, 8, 0].map({ UInt8(truncatingIfNeeded: end.adler >> $0) }).enumerated() {
                bytes[places[end.at + i]] = byte
            }
        }
        for chunk in chunks {
            let crc = crc32(bytes[(chunk.start + 4)..<(chunk.start + 8 + chunk.length)])
            for (i, shift) in [24, 16, 8, 0].enumerated() {
                bytes[chunk.start + 8 + chunk.length + i] = UInt8(truncatingIfNeeded: crc >> UInt32(shift))
            }
        }
        return bytes
    }

    /// Where a zlib stream of stored blocks only ends (its Adler-32's
    /// place) and the Adler-32 of what it holds; nil for any other stream.
    static func storedEnd(_ stream: [UInt8]) -> (at: Int, adler: UInt32)? {
        guard stream.count >= 2 else { return nil }
        var at = 2, a: UInt32 = 1, b: UInt32 = 0
        while at + 5 <= stream.count {
            let header = stream[at]
            guard header & 0x06 == 0 else { return nil }  // not a stored block
            let length = Int(stream[at + 1]) | Int(stream[at + 2]) << 8
            guard at + 5 + length <= stream.count else { return nil }
            for byte in stream[(at + 5)..<(at + 5 + length)] {
                a = (a + UInt32(byte)) % 65521
                b = (b + a) % 65521
            }
            at += 5 + length
            if header & 1 == 1 { return (at, b << 16 | a) }
        }
        return nil
    }

    static func crc32<C: Collection<UInt8>>(_ bytes: C) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
