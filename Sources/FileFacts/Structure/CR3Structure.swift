/// Canon CR3: ISO base media boxes (`BMFFBox`). Its pictures as JPEGs: the
/// THMB box in Canon's `uuid` box inside `moov` (160x120), the PRVW box in
/// the `uuid` box that follows `moov` (1620x1080), and the full-size JPEG,
/// the first sample of a track (`stco`/`co64` and `stsz` say where). CMT1
/// and CMT2 are TIFF directories of their own: IFD0 and the EXIF IFD.
enum CR3Structure {
    /// Canon's metadata box inside `moov`, and the preview's box after it.
    static let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
    static let previewUUID: [UInt8] = [0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16]
    /// `moov` is read whole: Canon's metadata and the track tables, well
    /// under a megabyte in any camera's file.
    static let maxMoovBytes = 16 << 20
    static let maxTopLevelBoxes = 1000

    static func walk(_ file: FileBytes, _ layout: inout RawLayout) -> [(offset: Int, length: Int)] {
        var spans: [(offset: Int, length: Int)] = []
        var offset = 0, count = 0
        while offset < file.size, count < maxTopLevelBoxes {
            guard let head = try? file.read(offset, min(16, file.size - offset)), head.count >= 8,
                  let box = try? BMFFBox(head, at: offset, parentEnd: file.size, file: file) else { break }
            count += 1
            if box.type == "moov", box.size <= maxMoovBytes, let bytes = try? file.read(box.start, box.size) {
                spans += moov(bytes, at: box.start, file, &layout)
            } else if box.type == "uuid", let id = try? file.read(box.payload, 16), id == previewUUID {
                // 16 bytes of UUID, 8 of its own, then PRVW: 4+2 unknown, width, height, 2 unknown, the JPEG's length.
                let prvw = box.payload + 24
                if let bytes = try? file.read(prvw, 24), bytes.fourCC(4) == "PRVW" {
                    spans.append((prvw + 24, bytes.be32(20)))
                }
            }
            offset = box.start + box.size
        }
        return spans
    }

    /// `moov`'s own boxes, `bytes` being the whole box, read at `moovAt`.
    private static func moov(_ bytes: [UInt8], at moovAt: Int, _ file: FileBytes,
                             _ layout: inout RawLayout) -> [(offset: Int, length: Int)] {
        guard let header = try? BMFFBox(bytes, local: 0, at: 0, parentEnd: bytes.count, file: file),
              let children = try? BMFFBox.children(bytes, from: header.payload, to: bytes.count, file: file) else { return [] }
        var spans: [(offset: Int, length: Int)] = []
        for child in children {
            if child.type == "uuid", child.payload + 16 <= child.start + child.size,
               Array(bytes[child.payload..<child.payload + 16]) == canonUUID,
               let inner = try? BMFFBox.children(bytes, from: child.payload + 16, to: child.start + child.size, file: file) {
                for box in inner { canon(box, bytes, at: moovAt, file, &layout, &spans) }
            } else if child.type == "trak", let sample = firstSample(child, bytes, file) {
                spans.append(sample)
            }
        }
        return spans
    }

    /// One of Canon's boxes: THMB (a JPEG), CMT1 and CMT2 (TIFF directories).
    private static func canon(_ box: BMFFBox, _ bytes: [UInt8], at moovAt: Int, _ file: FileBytes, _ layout: inout RawLayout,
                              _ spans: inout [(offset: Int, length: Int)]) {
        let end = box.start + box.size
        switch box.type {
        case "THMB":
            // Version and flags, width, height, the JPEG's length, 4 unknown bytes, the JPEG.
            guard box.payload + 16 <= end else { return }
            spans.append((moovAt + box.payload + 16, min(bytes.be32(box.payload + 8), end - box.payload - 16)))
        case "CMT1", "CMT2":
            guard let tiff = file.window(moovAt + box.payload, end - box.payload),
                  let head = try? tiff.read(0, 8), head.starts(with: [0x49, 0x49]) || head.starts(with: [0x4D, 0x4D]) else { return }
            let order = TIFFLayout(little: head[0] == 0x49, big: false)
            guard let ifd = try? TIFFDirectory(tiff, order, at: order.int(head, 4, 4)) else { return }
            if box.type == "CMT1", let value = (try? ifd.value(274, tiff, order)) ?? nil, (1...8).contains(value) {
                layout.orientation = value
            }
            if box.type == "CMT2", let text = RawStructure.ascii(ifd, 36867, tiff, order) {
                layout.taken = ExifDateTime.parse(text)
            }
        default: break
        }
    }

    /// A track's first sample (offsets in the file): `trak/mdia/minf/stbl`,
    /// its first chunk's offset (`co64` or `stco`) and first sample's size (`stsz`).
    private static func firstSample(_ trak: BMFFBox, _ bytes: [UInt8], _ file: FileBytes) -> (offset: Int, length: Int)? {
        var box = trak
        for name in ["mdia", "minf", "stbl"] {
            guard let inner = try? BMFFBox.children(bytes, from: box.payload, to: box.start + box.size, file: file),
                  let next = inner.first(where: { $0.type == name }) else { return nil }
            box = next
        }
        guard let tables = try? BMFFBox.children(bytes, from: box.payload, to: box.start + box.size, file: file) else { return nil }
        var offset: Int?, size: Int?
        for table in tables {
            let end = table.start + table.size, at = table.payload
            switch table.type {
            case "co64" where at + 16 <= end && bytes.be32(at + 4) > 0:
                let value = bytes.be64(at + 8)
                offset = value > UInt64(Int.max) ? nil : Int(value)
            case "stco" where at + 12 <= end && bytes.be32(at + 4) > 0:
                offset = bytes.be32(at + 8)
            case "stsz" where at + 12 <= end:
                // A full box: a size for every sample, or 0 and a table.
                let uniform = bytes.be32(at + 4)
                if uniform > 0 { size = uniform } else if at + 16 <= end, bytes.be32(at + 8) > 0 { size = bytes.be32(at + 12) }
            default: break
            }
        }
        guard let offset, let size else { return nil }
        return (offset, size)
    }
}
