import FileFacts
import Vips

/// CJPEG, the small JPEG decode `--pick`'s looks take, against libvips on
/// the same bytes. Invariants: CJPEG returns a tile or declines, and
/// throws only what the file's structure check throws (which libvips'
/// decode throws too); what it decodes, libvips (strict, as a run decodes)
/// decodes too, to the same pixels, byte for byte. What it declines is
/// libvips' alone, whatever libvips says. The tile is a fifth of the
/// picture each way (libvips' thumbnail shrinks such a JPEG by 2 on load).
enum SmallJPEGTarget {
    static let decode = FuzzTarget("jpeg-small", maxLength: 16384, mallocLimitMB: 64) { bytes in
        ScratchFile.first.holding(bytes) { descriptor in
            guard let header = try? ImageFile.header(descriptor: descriptor, maxBuffer: 16 << 20),
                  header.format == "jpeg" else { return nil }
            let width = max(1, header.displayedWidth / 5), height = max(1, header.displayedHeight / 5)
            let fast: PixelBuffer?
            do {
                fast = try ImageFile.smallJPEGTile(descriptor: descriptor, width: width, height: height, header: header,
                                                   maxBuffer: 16 << 20, maxBytes: 16 << 20)
            } catch {
                // The structure check's refusal: libvips' decode must refuse too.
                let slow = try? ImageFile.tile(descriptor: descriptor, width: width, height: height,
                                               background: RGB(red: 0, green: 0, blue: 0), header: header,
                                               maxBuffer: 16 << 20, colourManaged: false)
                return slow == nil ? nil : "CJPEG threw \(error) where libvips decodes"
            }
            guard let fast else { return nil }
            let slow: PixelBuffer
            do {
                slow = try ImageFile.tile(descriptor: descriptor, width: width, height: height,
                                          background: RGB(red: 0, green: 0, blue: 0), header: header,
                                          maxBuffer: 16 << 20, colourManaged: false)
            } catch {
                return "CJPEG decoded \(width)x\(height) where libvips says: \(error)"
            }
            guard fast.width == slow.width, fast.height == slow.height else {
                return "CJPEG decoded \(fast.width)x\(fast.height), libvips \(slow.width)x\(slow.height)"
            }
            let same = fast.withUnsafeBytes { f in slow.withUnsafeBytes { s in f.elementsEqual(s) } }
            return same ? nil : "CJPEG's pixels differ from libvips' at \(width)x\(height)"
        }
    }
}
