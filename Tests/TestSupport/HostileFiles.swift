// Files whose structure lies (a chunk, strip, tile, frame or box larger
// than the file; a count or size that is a claim, not data), crafted byte
// by byte, one catalogue shared by the unit tests of the structure check
// and the command-line tests of the whole run.

/// One hostile file and what must become of it.
public struct HostileFile: Sendable {
    public let name: String
    public let bytes: [UInt8]
    /// "failed", or "rejected:too-large".
    public let verdict: String
    /// Words of the reason that name the problem.
    public let reason: String
    public var tooLarge: Bool { verdict == "rejected:too-large" }
}

public func be16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
public func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
public func le16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
public func le32(_ value: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) } }
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

public enum Hostile {
    /// Every hostile file, by format.
    public static var catalogue: [HostileFile] { png + tiff + gif + webp + heif + jpeg }

    // MARK: PNG

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A chunk with a correct CRC; `length` overrides the declared length.
    public static func pngChunk(_ type: String, _ data: [UInt8], length: Int? = nil) -> [UInt8] {
        let body = ascii(type) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return be32(length ?? data.count) + body + be32(Int(~crc))
    }

    public static func ihdr(_ width: Int, _ height: Int, interlace: UInt8 = 0) -> [UInt8] {
        pngChunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, interlace])
    }

    static var png: [HostileFile] {
        let texts = ["iTXt", "zTXt", "tEXt", "sPLT", "pCAL", "sCAL"].map { type in
            HostileFile(name: "png-\(type)-1GiB.png", bytes: signature + ihdr(16, 16) + be32(1 << 30) + ascii(type) + ascii("ab"),
                        verdict: "failed", reason: "chunk \(type) of 1073741824 bytes")
        }
        let many = (0..<5000).flatMap { _ in pngChunk("tEXt", ascii("k\0v")) }
        return texts + [
            HostileFile(name: "png-interlaced-16000.png", bytes: signature + ihdr(16000, 16000, interlace: 1) + pngChunk("IEND", []),
                        verdict: "rejected:too-large", reason: "interlaced png of 16000x16000"),
            HostileFile(name: "png-5000-chunks.png", bytes: signature + ihdr(16, 16) + many + pngChunk("IEND", []),
                        verdict: "failed", reason: "more than 4096 chunks"),
            HostileFile(name: "png-idat-past-end.png", bytes: signature + ihdr(16, 16) + be32(0x7FFF_0000) + ascii("IDATxx"),
                        verdict: "failed", reason: "chunk IDAT of 2147418112 bytes"),
        ]
    }

    // MARK: TIFF

    /// A little-endian classic TIFF: one IFD of `entries` (tag, type,
    /// count, value) at offset 8, then `tail`. `next` is the next IFD.
    public static func tiff(_ entries: [(Int, Int, Int, Int)], next: Int = 0, tail: [UInt8] = []) -> [UInt8] {
        var bytes = ascii("II") + le16(42) + le32(8) + le16(entries.count)
        for (tag, type, count, value) in entries.sorted(by: { $0.0 < $1.0 }) {
            bytes += le16(tag) + le16(type) + le32(count) + le32(value)
        }
        return bytes + le32(next) + tail
    }

    /// The entries of a 16x16 8-bit grey image, one strip at `dataAt` of
    /// `stripBytes`, with `extra` entries replacing or adding to them.
    public static func greyEntries(dataAt: Int, stripBytes: Int = 256, _ extra: [(Int, Int, Int, Int)] = []) -> [(Int, Int, Int, Int)] {
        var entries: [Int: (Int, Int, Int, Int)] = [:]
        for entry in [(256, 3, 1, 16), (257, 3, 1, 16), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
                      (273, 4, 1, dataAt), (277, 3, 1, 1), (278, 3, 1, 16), (279, 4, 1, stripBytes)] + extra {
            entries[entry.0] = entry
        }
        return entries.values.sorted { $0.0 < $1.0 }
    }

    /// The offset just after an IFD of `count` entries at 8.
    public static func afterIFD(_ count: Int) -> Int { 8 + 2 + 12 * count + 4 }

    static var tiff: [HostileFile] {
        let pixels = [UInt8](repeating: 0x80, count: 256)
        let at = afterIFD(9)
        var entries65535 = ascii("II") + le16(42) + le32(8) + le16(65535)
        entries65535 += [UInt8](repeating: 0, count: 64)
        return [
            HostileFile(name: "tiff-strip-1GiB.tif", bytes: tiff(greyEntries(dataAt: at, stripBytes: 1 << 30), tail: pixels),
                        verdict: "failed", reason: "strip 0 of 1073741824 bytes"),
            HostileFile(name: "tiff-strip-offset-past-end.tif", bytes: tiff(greyEntries(dataAt: 1 << 30), tail: pixels),
                        verdict: "failed", reason: "strip 0 of 256 bytes at offset 1073741824"),
            HostileFile(name: "tiff-ifd-65535-entries.tif", bytes: entries65535,
                        verdict: "failed", reason: "claims 65535 entries"),
            HostileFile(name: "tiff-ifd-loop.tif", bytes: tiff(greyEntries(dataAt: at), next: 8, tail: pixels),
                        verdict: "failed", reason: "loops back to offset 8"),
            HostileFile(name: "tiff-100000-strips.tif",
                        bytes: tiff(greyEntries(dataAt: at, [(273, 4, 100_000, at), (279, 4, 100_000, at)]), tail: pixels),
                        verdict: "failed", reason: "tag 273 of 100000 values"),
            HostileFile(name: "tiff-strips-vs-rows.tif",
                        bytes: tiff(greyEntries(dataAt: at, [(273, 4, 16, at), (279, 4, 16, at)]), tail: pixels + pixels),
                        verdict: "failed", reason: "16 strips where the image size makes 1"),
            HostileFile(name: "tiff-tile-65520.tif",
                        bytes: tiff(greyEntries(dataAt: at, [(322, 3, 1, 65520), (323, 3, 1, 65520), (324, 4, 1, at),
                                                             (325, 4, 1, 256)]), tail: pixels),
                        verdict: "rejected:too-large", reason: "tiff tile of 65520x65520"),
            HostileFile(name: "tiff-one-strip-16000.tif",
                        bytes: tiff(greyEntries(dataAt: at, [(256, 4, 1, 16000), (257, 4, 1, 16000), (278, 4, 1, 16000)]),
                                    tail: pixels),
                        verdict: "rejected:too-large", reason: "tiff strip of 16000 rows"),
            HostileFile(name: "tiff-bits-200.tif", bytes: tiff(greyEntries(dataAt: at, [(258, 3, 1, 200)]), tail: pixels),
                        verdict: "failed", reason: "1 samples of 200 bits"),
        ]
    }
}
