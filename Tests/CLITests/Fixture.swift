import CollageTestSupport
import Foundation
import Glibc
import Vips

// MARK: - Image bytes

enum Fixture {
    /// Coarse colour noise from a fixed seed: it does not compress, so its
    /// encoded size is about its pixel size, and a part of the file is a
    /// part of the pixels.
    static func noise(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var random = SplitMix64(seed: seed)
        return PixelBuffer(width: width, height: height) { _, _ in
            let value = random.next()
            return RGB(red: UInt8(value & 0xff), green: UInt8((value >> 8) & 0xff), blue: UInt8((value >> 16) & 0xff))
        }
    }

    // MARK: PNG

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 { pngCRC32(bytes) }

    static func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// The chunks of a PNG: type, offset of the chunk (its length field), data length.
    static func pngChunks(_ png: [UInt8]) -> [(type: String, offset: Int, length: Int)] {
        var chunks: [(String, Int, Int)] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            chunks.append((type, offset, length))
            offset += 12 + length
        }
        return chunks
    }

    /// Recomputes the CRC of the chunk at `offset` (after its data was changed).
    static func fixCRC(_ png: inout [UInt8], chunkAt offset: Int) {
        let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        guard offset + 12 + length <= png.count else { return }
        let crc = be32(crc32(png[(offset + 4)..<(offset + 8 + length)]))
        png.replaceSubrange((offset + 8 + length)..<(offset + 12 + length), with: crc)
    }

    /// A PNG whose header claims `width` x `height` with one tiny IDAT.
    static func hugeHeaderPNG(width: UInt32, height: UInt32) -> [UInt8] {
        CollageTestSupport.hugeHeaderPNG(width: width, height: height)
    }

    // MARK: JPEG

    /// The marker segments of a JPEG up to its first SOS: marker, offset of
    /// the 0xFF, length field value.
    static func jpegSegments(_ jpeg: [UInt8]) -> [(marker: UInt8, offset: Int, length: Int)] {
        var segments: [(UInt8, Int, Int)] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            segments.append((marker, offset, length))
            if marker == 0xDA { break }
            offset += 2 + length
        }
        return segments
    }

    /// The offset of the SOF0/SOF1/SOF2 segment.
    static func sofOffset(_ jpeg: [UInt8]) -> Int? {
        jpegSegments(jpeg).first { [0xC0, 0xC1, 0xC2].contains($0.marker) }?.offset
    }

    /// The same JPEG with its frame header claiming another size.
    static func jpeg(_ jpeg: [UInt8], claiming width: Int, _ height: Int) -> [UInt8] {
        guard let sof = sofOffset(jpeg) else { return jpeg }
        var bytes = jpeg
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xff)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xff)
        return bytes
    }

    /// The same JPEG with an APP1 segment holding `payload` right after SOI.
    static func jpeg(_ jpeg: [UInt8], insertingAPP1 payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xff)] + payload
            + Array(jpeg[2...])
    }

    // MARK: GIF, PDF, and things that are not images

    /// A GIF89a with one frame per colour.
    static func animatedGIF(width: Int, height: Int, frames: [RGB]) -> [UInt8] {
        CollageTestSupport.animatedGIF(width: width, height: height, frames: frames)
    }

    /// A one-page PDF with a filled blue rectangle.
    static func pdf() -> [UInt8] { minimalPDF(width: 400, height: 300) }

    /// A landscape SVG filled with one colour: libvips' svgload would render it.
    static func svg(_ colour: RGB) -> [UInt8] {
        b("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"300\">"
          + "<rect width=\"400\" height=\"300\" fill=\"\(colour)\"/></svg>\n")
    }

    static let postScript = b("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 400 300\n"
                              + "1 0 1 setrgbcolor 0 0 400 300 rectfill showpage\n%%EOF\n")

    /// ImageMagick Vector Graphics: a script ImageMagick would draw.
    static let mvg = b("push graphic-context\nviewbox 0 0 400 300\nfill magenta\nrectangle 0 0 400 300\n"
                       + "pop graphic-context\n")

    /// ImageMagick Scripting Language: reads and writes files when run.
    static let msl = b("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<image>\n<read filename=\"/etc/passwd\"/>\n"
                       + "<write filename=\"/tmp/collage-msl-was-run.png\"/>\n</image>\n")

    static let html = b("<!DOCTYPE html>\n<html><head><title>x</title></head><body><img src=\"a.jpg\"></body></html>\n")
}
