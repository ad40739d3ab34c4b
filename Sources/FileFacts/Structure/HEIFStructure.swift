/// HEIF and AVIF: ISO base media boxes. Every box must fit in its parent
/// and the file; the `meta` box's item tables (iinf, iloc, ipma) must fit
/// in their boxes and point into the file; every `ispe` (an image's
/// extent) is held to --max-pixels and, for what libheif decodes whole,
/// to the buffer limit.
enum HEIFStructure {
    static let maxTopLevelBoxes = 10_000
    /// libheif's later versions stop at 1000 items; a file needs a few
    /// hundred at most (a grid of tiles).
    static let maxItems = 4096
    /// A meta box is read whole: tables of a few thousand items fit easily.
    static let maxMetaBytes = 16 << 20

    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        var offset = 0, count = 0
        var summary = StructureCheck.Summary()
        var sawMeta = false
        while offset < file.size {
            guard let head = try file.read(offset, min(16, file.size - offset)), head.count >= 8 else {
                throw truncated("heif", "a box header cut short at offset \(offset)", file)
            }
            let box = try BMFFBox(head, at: offset, parentEnd: file.size, file: file)
            count += 1
            guard count <= maxTopLevelBoxes else { throw corrupt("heif", "more than \(maxTopLevelBoxes) boxes") }
            if box.type == "meta" {
                guard box.size <= maxMetaBytes, let bytes = try file.read(box.start, box.size) else {
                    throw corrupt("heif", "a meta box of \(box.size) bytes")
                }
                summary = try meta(bytes, file, limits)
                sawMeta = true
            }
            offset = box.start + box.size
        }
        guard sawMeta else { throw corrupt("heif", "no meta box") }
        return summary
    }

    /// The children of meta (a full box: 4 bytes of version and flags first).
    private static func meta(_ bytes: [UInt8], _ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        var summary = StructureCheck.Summary()
        var shrinkable = true
        // A grid decoded tile by tile never holds the whole picture: only
        // --max-pixels holds its extent, and each tile's is held to the
        // buffer limit (the tiles' ispe is listed too).
        let layout = HEIFLayout.read(bytes, file)
        let tiledGrid = layout.flatMap { $0.isGrid ? ($0.width, $0.height) : nil }
        summary.heifLayout = layout
        let header = try BMFFBox(bytes, local: 0, at: 0, parentEnd: bytes.count, file: file)
        for child in try BMFFBox.children(bytes, from: header.payload + 4, to: bytes.count, file: file) {
            switch child.type {
            case "iinf":
                guard child.size >= child.payload - child.start + 6 else { throw corrupt("heif", "an iinf box too short") }
                let version = bytes[child.payload]
                // Version 0 counts in 2 bytes, later ones in 4 (the payload, not
                // the box, must hold them: a 64-bit size takes 8 more of the box).
                let payload = child.start + child.size - child.payload
                let items = version == 0 ? bytes.be16(child.payload + 4) : payload >= 8 ? bytes.be32(child.payload + 4) : .max
                // Each item entry (infe) is a box of at least 12 bytes.
                guard items <= maxItems, product(items, 12) <= child.start + child.size - child.payload else {
                    throw corrupt("heif", "iinf claims \(items) items in a \(child.size)-byte box")
                }
                shrinkable = shrinkable && !derivedImages(bytes, child, file)
            case "iloc":
                try ItemLocations.check(bytes, child, file, maxItems: maxItems)
            case "iprp":
                for property in try BMFFBox.children(bytes, from: child.payload, to: child.start + child.size, file: file)
                where property.type == "ipco" {
                    let end = property.start + property.size
                    let items = try BMFFBox.children(bytes, from: property.payload, to: end, file: file)
                    let sampleBytes = items.contains { $0.type == "pixi" && deepSamples(bytes, $0) } ? 2 : 1
                    shrinkable = shrinkable && sampleBytes == 1 && !items.contains { $0.type == "av1C" }
                    for item in items where item.type == "ispe" {
                        guard item.size >= item.payload - item.start + 12 else { throw corrupt("heif", "an ispe box too short") }
                        let width = bytes.be32(item.payload + 4), height = bytes.be32(item.payload + 8)
                        try limits.pixels("heif image", width, height)
                        if let tiledGrid, tiledGrid == (width, height) { continue }
                        // libheif decodes an image whole: planes, then RGB.
                        let decoded = product(width, height, 4)
                        try limits.buffer("a heif image of \(width)x\(height)", decoded)
                        summary.bufferBytes = max(summary.bufferBytes, decoded)
                        summary.decodeBytes = max(summary.decodeBytes, product(width, height, heldPerPixel, sampleBytes))
                        summary.shrunkDecodeBytes = max(summary.shrunkDecodeBytes,
                                                        min(.max / 2, product(width, height, shrunkPerPixel)) + min(.max / 2, product(file.size, 2)))
                    }
                }
            default: break
            }
        }
        if !shrinkable { summary.shrunkDecodeBytes = 0 }
        return summary
    }
}

extension HEIFStructure {
    /// Bytes libvips' HEIF loader holds per pixel of an image at 8 bits
    /// (twice that deeper): libde265's decoded picture and libheif's copy
    /// of its planes (4:2:0, 1.5 bytes each), then the RGB libheif converts
    /// them to and libvips keeps while it resizes (3). There is no
    /// shrink-on-load: a tile of any size holds the whole picture. Measured
    /// here on 12 MP HEICs (4032x3024) into sheets: one decode alone peaked
    /// 57 MiB above the process (the picture is freed before the RGB is
    /// made: 4.5 bytes a pixel, plus libvips' working set), but a second one
    /// beside it added 70 MiB more; counted at 4.5, two ran at once and the
    /// run peaked at 174-192 MiB. Counted at 6, a 12 MP HEIC holds 75 MiB of
    /// the 116 MiB budget and shares it only with what fits beside it. Still
    /// the figure for what is not decoded small (`shrunkPerPixel`).
    static let heldPerPixel = 6

    /// Bytes a HEIF decode holds per pixel of its image when it is decoded
    /// small (`ImageFile.shrunkHEIF`: 8-bit HEVC, shrunk at least 2x),
    /// besides twice the file's size (the coded picture, as libheif reads
    /// it and as libde265 keeps its NAL units): libde265's picture (1.5)
    /// and what it keeps beside it for every 4x4 block (motion, modes,
    /// deblocking), and the shrunk planes; libheif's copy and the
    /// whole-picture RGB are never made. Measured here on the 12 MP HEICs
    /// of the benchmarks (0.7 to 6.8 MB) into 600x533 cells: in `collage`
    /// (release, --jobs 1, twelve copies of one file against twelve 12 MP
    /// baseline JPEGs) 31 to 42 MB a decode, 2.33 to 2.44 bytes a pixel
    /// plus twice the file (libvips' loader: 68 to 71 MB); decoded alone
    /// by a small C program (chevc_decode_shrunk, then libvips' thumbnail
    /// of the small picture, glibc tuned as `collage` tunes it), cold,
    /// 46 to 58 MB above that program, 3.67 to 3.69 bytes a pixel plus
    /// twice the file (libvips' loader: 75 to 76 MB). Counted at 3, and
    /// `ImageHeader.workingSet`: two 12 MP HEICs of up to 8 MB fit the
    /// 116 MiB budget at once.
    static let shrunkPerPixel = 3

    /// Whether the `iinf` box lists a derived image (a grid of tiles, an
    /// overlay, an identity transform), which is not decoded small; true
    /// too when its entries cannot be read.
    static func derivedImages(_ bytes: [UInt8], _ iinf: BMFFBox, _ file: FileBytes) -> Bool {
        let end = iinf.start + iinf.size, first = iinf.payload + 4 + (bytes[iinf.payload] == 0 ? 2 : 4)
        guard first <= end, let entries = try? BMFFBox.children(bytes, from: first, to: end, file: file) else { return true }
        for entry in entries where entry.type == "infe" {
            guard entry.payload + 4 <= entry.start + entry.size else { return true }
            let version = bytes[entry.payload]
            guard version >= 2 else { continue }  // versions 0 and 1 name no item type
            let type = entry.payload + 4 + (version == 2 ? 2 : 4) + 2
            guard type + 4 <= entry.start + entry.size else { return true }
            if ["grid", "iovl", "iden"].contains(bytes.fourCC(type)) { return true }
        }
        return false
    }

    /// Whether a `pixi` box (a full box: version and flags, a channel count,
    /// then bits per channel) gives any channel more than 8 bits: libheif
    /// then decodes to 16-bit planes and libvips to 16-bit RGB.
    static func deepSamples(_ bytes: [UInt8], _ pixi: BMFFBox) -> Bool {
        let end = pixi.start + pixi.size, count = pixi.payload + 4
        guard count < end else { return false }
        let channels = Int(bytes[count])
        return (0..<channels).contains { count + 1 + $0 < end && bytes[count + 1 + $0] > 8 }
    }
}

/// One box: where it starts, its whole size, and where its payload begins.
struct BMFFBox {
    let type: String
    let start: Int
    let size: Int
    let payload: Int

    /// Reads the box header at `bytes[local]`; `at` and `parentEnd` are in
    /// the caller's coordinates (the file's, or the meta box's).
    init(_ bytes: [UInt8], local: Int = 0, at: Int, parentEnd: Int, file: FileBytes) throws {
        guard local + 8 <= bytes.count else { throw truncated("heif", "a box header at offset \(at)", file) }
        type = bytes.fourCC(local + 4)
        var size = bytes.be32(local)
        var header = 8
        if size == 1 {
            guard local + 16 <= bytes.count else { throw truncated("heif", "box \(type) at offset \(at)", file) }
            let large = bytes.be64(local + 8)
            size = large > UInt64(Int.max) ? .max : Int(large)
            header = 16
        } else if size == 0 {
            size = parentEnd - at
        }
        guard size >= header else { throw corrupt("heif", "box \(type) at offset \(at) claims \(size) bytes") }
        guard size <= parentEnd - at else {
            throw truncated("heif", "box \(type) of \(size) bytes at offset \(at) (its parent ends at \(parentEnd))", file)
        }
        self.start = at
        self.size = size
        self.payload = at + header
    }

    /// The boxes in `bytes[from..<to]`, each within it.
    static func children(_ bytes: [UInt8], from: Int, to: Int, file: FileBytes) throws -> [BMFFBox] {
        var boxes: [BMFFBox] = []
        var offset = from
        while offset < to {
            guard offset + 8 <= to else { throw truncated("heif", "a box header at offset \(offset) of the meta box", file) }
            let box = try BMFFBox(bytes, local: offset, at: offset, parentEnd: to, file: file)
            boxes.append(box)
            guard boxes.count <= HEIFStructure.maxItems * 4 else { throw corrupt("heif", "more than \(boxes.count) boxes") }
            offset = box.start + box.size
        }
        return boxes
    }
}
