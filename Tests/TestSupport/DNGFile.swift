import Foundation
import Vips

/// A small but real DNG, written byte by byte (the Swift twin of
/// scripts/lib/make-dng.py): IFD0 holds the JPEG preview (NewSubFileType 1,
/// as cameras write it), a SubIFD the raw data, an RGGB Bayer mosaic of 16
/// bits a sample (or 12), uncompressed, whose camera space is linear sRGB
/// (ColorMatrix1 is sRGB's XYZ matrix): a demosaic gives back the scene.
/// The scene is `colour` on the left half and white on the right (the
/// white keeps LibRaw's automatic brightness at 1).
public struct DNGFile {
    public var width = 600
    public var height = 400
    public var colour = RGB(red: 200, green: 40, blue: 40)
    public var orientation = 1
    /// EXIF DateTimeOriginal, "YYYY:MM:DD HH:MM:SS".
    public var date: String?
    /// The preview's bytes (any bytes: a test may lie), and the size IFD0
    /// claims for it (by default the JPEG's own, or 0x0).
    public var preview: [UInt8]?
    public var previewClaim: (width: Int, height: Int)?
    public var rawData = true
    public var bits = 16
    /// IFD0's next-IFD offset pointing back at IFD0 (a loop).
    public var loop = false
    /// The raw data as a lossy DNG stores it (Compression and
    /// PhotometricInterpretation 34892): one tile, a baseline JPEG of the
    /// scene in sRGB (LibRaw linearises it), placed last in the file so that
    /// its decoder's reads reach the end of the file.
    public var lossy = false
    /// A second preview, pointed to by IFD0's JPEGInterchangeFormat (513, 514).
    public var secondPreview: [UInt8]?
    /// Raw samples all zero (data gone, as a copy cut short leaves it).
    public var zeroRaw = false

    public init() {}

    public var bytes: [UInt8] {
        var ifd0 = Directory(), raw = Directory(), exif = Directory()
        if let preview {
            let claim = previewClaim ?? Self.jpegSize(preview) ?? (0, 0)
            ifd0.add(254, long: [1])
            ifd0.add(256, long: [claim.width]); ifd0.add(257, long: [claim.height])
            ifd0.add(258, short: [8, 8, 8]); ifd0.add(259, short: [7]); ifd0.add(262, short: [6])
            ifd0.add(273, long: [0]); ifd0.add(277, short: [3]); ifd0.add(278, long: [claim.height])
            ifd0.add(279, long: [preview.count])
        } else {
            ifd0.add(254, long: [1])
        }
        if let secondPreview { ifd0.add(513, long: [0]); ifd0.add(514, long: [secondPreview.count]) }
        ifd0.add(271, ascii: "Collage"); ifd0.add(272, ascii: "Test DNG")
        ifd0.add(274, short: [orientation])
        if rawData { ifd0.add(330, long: [0]) }
        if date != nil { ifd0.add(34665, long: [0]) }
        ifd0.add(50706, bytes: [1, 4, 0, 0]); ifd0.add(50707, bytes: [1, 1, 0, 0])
        ifd0.add(50708, ascii: "Collage Test DNG")
        let matrix = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
        ifd0.add(50721, srational: matrix.map { Int(($0 * 10000).rounded()) })
        ifd0.add(50778, short: [21])
        ifd0.add(50728, rational: [(1, 1), (1, 1), (1, 1)])
        let top = (1 << bits) - 1
        let payload = !rawData ? [] : lossy ? lossyTile()
            : zeroRaw ? [UInt8](repeating: 0, count: width * height * 2) : mosaic(top: top)
        if rawData && lossy {
            raw.add(254, long: [0]); raw.add(256, long: [width]); raw.add(257, long: [height])
            raw.add(258, short: [8, 8, 8]); raw.add(259, short: [34892]); raw.add(262, short: [34892])
            raw.add(277, short: [3]); raw.add(284, short: [1])
            raw.add(322, long: [width]); raw.add(323, long: [height])
            raw.add(324, long: [0]); raw.add(325, long: [payload.count])
        } else if rawData {
            raw.add(254, long: [0]); raw.add(256, long: [width]); raw.add(257, long: [height])
            raw.add(258, short: [16]); raw.add(259, short: [1]); raw.add(262, short: [32803])
            raw.add(273, long: [0]); raw.add(277, short: [1]); raw.add(278, long: [height])
            raw.add(279, long: [width * height * 2]); raw.add(284, short: [1])
            raw.add(33421, short: [2, 2]); raw.add(33422, bytes: [0, 1, 1, 2])
            raw.add(50714, long: [0]); raw.add(50717, long: [top])
        }
        if let date { exif.add(36867, ascii: date) }
        let directories = [ifd0] + (rawData ? [raw] : []) + (date != nil ? [exif] : [])
        // Layout: header, the IFDs, their values, the preview, the raw data.
        var at: [Int] = []
        var offset = 8
        for directory in directories { at.append(offset); offset += 2 + 12 * directory.entries.count + 4 }
        var values: [UInt8] = []
        var valueAt: [[Int: Int]] = []
        for directory in directories {
            var placed: [Int: Int] = [:]
            for entry in directory.entries where entry.data.count > 4 {
                placed[entry.tag] = offset + values.count
                values += entry.data
                if values.count % 2 == 1 { values.append(0) }
            }
            valueAt.append(placed)
        }
        let previewAt = offset + values.count
        let secondAt = previewAt + (preview.map { $0.count + $0.count % 2 } ?? 0)
        let rawAt = secondAt + (secondPreview.map { $0.count + $0.count % 2 } ?? 0)
        var patched = directories
        patched[0].set(273, previewAt)
        if secondPreview != nil { patched[0].set(513, secondAt) }
        if rawData { patched[0].set(330, at[1]); patched[1].set(lossy ? 324 : 273, rawAt) }
        if date != nil { patched[0].set(34665, at[directories.count - 1]) }
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0] + le32(8)
        for (index, directory) in patched.enumerated() {
            out += le16(directory.entries.count)
            for entry in directory.entries {
                out += le16(entry.tag) + le16(entry.type) + le32(entry.count)
                out += entry.data.count > 4 ? le32(valueAt[index][entry.tag]!) : entry.data + [UInt8](repeating: 0, count: 4 - entry.data.count)
            }
            out += le32(index == 0 && loop ? 8 : 0)
        }
        out += values
        if let preview { out += preview + (preview.count % 2 == 1 ? [0] : []) }
        if let secondPreview { out += secondPreview + (secondPreview.count % 2 == 1 ? [0] : []) }
        out += payload
        return out
    }

    /// The scene as a baseline JPEG (sRGB), for a lossy DNG's one tile.
    private func lossyTile() -> [UInt8] {
        let scene = PixelBuffer(width: width, height: height) { x, _ in x < width / 2 ? colour : .white }
        return (try? Encoder.encode(scene, suffix: ".jpg[Q=95,strip]").bytes) ?? []
    }

    /// The Bayer mosaic of the scene: R G / G B, linear light.
    private func mosaic(top: Int) -> [UInt8] {
        func linear(_ value: UInt8) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let left = [linear(colour.red), linear(colour.green), linear(colour.blue)].map { UInt16(($0 * Double(top)).rounded()) }
        let white = UInt16(top)
        var out = [UInt8](repeating: 0, count: width * height * 2)
        for y in 0..<height {
            for x in 0..<width {
                let channel = y % 2 == 0 ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2)
                let value = x < width / 2 ? left[channel] : white
                out[(y * width + x) * 2] = UInt8(value & 0xFF)
                out[(y * width + x) * 2 + 1] = UInt8(value >> 8)
            }
        }
        return out
    }

    /// A JPEG's size from its frame header.
    public static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var at = 2
        while at + 9 < bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1], length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if [0xC0, 0xC1, 0xC2].contains(marker) {
                return (Int(bytes[at + 7]) << 8 | Int(bytes[at + 8]), Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]))
            }
            at += 2 + length
        }
        return nil
    }

    private struct Directory {
        struct Entry { let tag: Int; let type: Int; let count: Int; var data: [UInt8] }
        var entries: [Entry] = []

        mutating func add(_ tag: Int, long values: [Int]) { put(tag, 4, values.count, values.flatMap(le32)) }
        mutating func add(_ tag: Int, short values: [Int]) { put(tag, 3, values.count, values.flatMap(le16)) }
        mutating func add(_ tag: Int, bytes values: [UInt8]) { put(tag, 1, values.count, values) }
        mutating func add(_ tag: Int, ascii text: String) { put(tag, 2, text.utf8.count + 1, Array(text.utf8) + [0]) }
        mutating func add(_ tag: Int, rational values: [(Int, Int)]) {
            put(tag, 5, values.count, values.flatMap { le32($0.0) + le32($0.1) })
        }
        mutating func add(_ tag: Int, srational numerators: [Int]) {
            put(tag, 10, numerators.count, numerators.flatMap { le32($0) + le32(10000) })
        }
        mutating func set(_ tag: Int, _ value: Int) {
            if let index = entries.firstIndex(where: { $0.tag == tag }) { entries[index].data = le32(value) }
        }
        private mutating func put(_ tag: Int, _ type: Int, _ count: Int, _ data: [UInt8]) {
            entries.append(Entry(tag: tag, type: type, count: count, data: data))
            entries.sort { $0.tag < $1.tag }
        }
    }
}
