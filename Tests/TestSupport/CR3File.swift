import Vips

/// A Canon CR3 as its boxes lay it out, written here: `ftyp` (brand
/// "crx "), `moov` holding Canon's `uuid` box (CMT1: IFD0 with the
/// orientation; CMT2: the EXIF IFD with DateTimeOriginal; THMB: a small
/// JPEG) and one `trak` whose first sample is the full-size JPEG, the
/// preview's `uuid` box (PRVW: a JPEG), and `mdat` (the full-size JPEG,
/// then what stands for the raw data). No camera LibRaw knows made it.
public struct CR3File {
    public var thumbnail: [UInt8]?
    public var preview: [UInt8]?
    public var fullSize: [UInt8]?
    /// The JPEG lengths the boxes claim (nil: the JPEG's own).
    public var previewClaim: Int?
    public var orientation = 1
    public var date: String?

    public init() {}

    public var bytes: [UInt8] {
        let ftyp = box("ftyp", Array("crx ".utf8) + be32(1) + Array("crx isom".utf8))
        var canon: [UInt8] = []
        canon += box("CMT1", tiff([(274, 3, 1, le16(orientation) + [0, 0])]))
        if let date {
            let text = Array(date.utf8) + [0]
            canon += box("CMT2", tiff([(36867, 2, text.count, le32(8 + 2 + 12 + 4))], extra: text))
        }
        if let thumbnail {
            canon += box("THMB", [0, 0, 0, 0] + be16(160) + be16(120) + be32(thumbnail.count) + [0, 1, 0, 0] + thumbnail)
        }
        let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
        let previewUUID: [UInt8] = [0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16]
        let prvw = preview.map { jpeg in
            box("uuid", previewUUID + [0, 0, 0, 0, 0, 0, 0, 1]
                + box("PRVW", [0, 0, 0, 0, 0, 1] + be16(1620) + be16(1080) + [0, 1] + be32(previewClaim ?? jpeg.count) + jpeg))
        } ?? []
        // The track's chunk offset is the file's: moov's size does not depend on it (co64 is 8 bytes whatever it holds).
        func moov(_ sampleAt: Int) -> [UInt8] {
            var children = box("uuid", canonUUID + canon)
            if let fullSize {
                let stsz = box("stsz", [0, 0, 0, 0] + be32(0) + be32(1) + be32(fullSize.count))
                let co64 = box("co64", [0, 0, 0, 0] + be32(1) + be32(0) + be32(sampleAt))
                children += box("trak", box("mdia", box("minf", box("stbl", stsz + co64))))
            }
            return box("moov", children)
        }
        let sampleAt = ftyp.count + moov(0).count + prvw.count + 8
        let mdat = box("mdat", (fullSize ?? []) + [UInt8](repeating: 0x5A, count: 256))
        return ftyp + moov(sampleAt) + prvw + mdat
    }

    private func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(8 + payload.count) + Array(type.utf8) + payload }

    /// A little-endian TIFF of one IFD (tag, type, count, 4-byte field), then `extra`.
    private func tiff(_ entries: [(Int, Int, Int, [UInt8])], extra: [UInt8] = []) -> [UInt8] {
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0] + le32(8) + le16(entries.count)
        for (tag, type, count, field) in entries { out += le16(tag) + le16(type) + le32(count) + field }
        return out + le32(0) + extra
    }

    private func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }
    private func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16) }
}
