// Test helpers shared by the three test targets: crafted files that no
// encoder here writes (an animated GIF, a PDF, a "bomb" PNG header) and a
// seeded random generator, so fuzzing and random interleavings repeat; and
// the quadrant marker the orientation tests draw.
import Vips

/// A GIF89a with one frame per colour, each `width` x `height` of that one
/// colour. libvips' `gifsave` cannot be told to write pages from the
/// command line, so the bytes are made here: LZW with 8-bit codes and a
/// clear code every 100 codes, so the code size never grows.
public func animatedGIF(width: Int, height: Int, frames: [RGB]) -> [UInt8] {
    precondition(frames.count <= 128)
    func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    var gif = Array("GIF89a".utf8) + le16(width) + le16(height)
    gif += [0xF6, 0, 0]  // global colour table of 128 entries
    var palette = [UInt8](repeating: 0, count: 128 * 3)
    for (index, colour) in frames.enumerated() {
        palette[index * 3] = colour.red
        palette[index * 3 + 1] = colour.green
        palette[index * 3 + 2] = colour.blue
    }
    gif += palette
    gif += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00]  // loop forever
    for index in frames.indices {
        gif += [0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00]  // 0.1 s per frame
        gif += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0x00]
        gif += [7]  // minimum code size: clear = 128, end = 129
        var codes: [UInt8] = []
        for pixel in 0..<(width * height) {
            if pixel % 100 == 0 { codes.append(128) }
            codes.append(UInt8(index))
        }
        codes.append(129)
        var start = 0
        while start < codes.count {
            let end = min(start + 255, codes.count)
            gif.append(UInt8(end - start))
            gif += codes[start..<end]
            start = end
        }
        gif.append(0)
    }
    gif.append(0x3B)
    return gif
}

/// A minimal one-page PDF with a filled rectangle, with a correct xref table.
public func minimalPDF(width: Int = 60, height: Int = 40) -> [UInt8] {
    let content = "0 0 1 rg 0 0 \(width) \(height) re f\n"
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents 4 0 R >>",
        "<< /Length \(content.utf8.count) >>\nstream\n\(content)endstream",
    ]
    var text = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (index, object) in objects.enumerated() {
        offsets.append(text.utf8.count)
        text += "\(index + 1) 0 obj\n\(object)\nendobj\n"
    }
    let xref = text.utf8.count
    text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets {
        let digits = String(offset)
        text += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
    }
    text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return Array(text.utf8)
}

/// A PNG whose header claims `width` x `height` (RGB, 8-bit) followed by one
/// tiny IDAT: a "bomb" header with almost no data behind it.
public func hugeHeaderPNG(width: UInt32, height: UInt32) -> [UInt8] {
    func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    func crc32(_ bytes: [UInt8]) -> UInt32 { pngCRC32(bytes) }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }
    // zlib stream of one stored block holding a single filter byte: enough to be an IDAT.
    let idat: [UInt8] = [0x78, 0x01, 0x01, 0x01, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x01]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        + chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
        + chunk("IDAT", idat)
        + chunk("IEND", [])
}

/// SplitMix64 (Steele, Lea, Flood 2014): a fixed seed gives the same
/// sequence on every machine, so a failure found with it can be reproduced.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<bound (bound > 0).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next() % UInt64(bound))
    }

    /// A number in range.
    public mutating func within(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }
}

/// The four quadrant colours of the picture a person sees, upright.
public enum Marker {
    public static let topLeft = RGB(red: 220, green: 20, blue: 20)
    public static let topRight = RGB(red: 20, green: 200, blue: 20)
    public static let bottomLeft = RGB(red: 20, green: 20, blue: 220)
    public static let bottomRight = RGB(red: 230, green: 220, blue: 20)

    /// The colour of displayed pixel (x, y) on a `width` x `height` picture.
    public static func displayed(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> RGB {
        let left = x < width / 2, top = y < height / 2
        return top ? (left ? topLeft : topRight) : (left ? bottomLeft : bottomRight)
    }

    /// Stored pixels that, once EXIF `orientation` is applied, show the
    /// marker upright at `displayedWidth` x `displayedHeight`. The mapping
    /// is the EXIF definition of each orientation (where row 0 and column 0
    /// of the stored image appear).
    public static func stored(orientation: Int, displayedWidth dw: Int, displayedHeight dh: Int) -> PixelBuffer {
        let swaps = orientation >= 5
        let (sw, sh) = swaps ? (dh, dw) : (dw, dh)
        // Invert: for each stored pixel, the displayed pixel it becomes.
        return PixelBuffer(width: sw, height: sh) { sx, sy in
            let (dx, dy): (Int, Int)
            switch orientation {
            case 1: (dx, dy) = (sx, sy)
            case 2: (dx, dy) = (dw - 1 - sx, sy)                // column 0 is the right side
            case 3: (dx, dy) = (dw - 1 - sx, dh - 1 - sy)       // turned half way
            case 4: (dx, dy) = (sx, dh - 1 - sy)                // row 0 is the bottom
            case 5: (dx, dy) = (sy, sx)                         // row 0 left side, column 0 top
            case 6: (dx, dy) = (dw - 1 - sy, sx)                // row 0 right side, column 0 top
            case 7: (dx, dy) = (dw - 1 - sy, dh - 1 - sx)       // row 0 right side, column 0 bottom
            case 8: (dx, dy) = (sy, dh - 1 - sx)                // row 0 left side, column 0 bottom
            default: preconditionFailure("orientation \(orientation)")
            }
            return displayed(dx, dy, dw, dh)
        }
    }
}
