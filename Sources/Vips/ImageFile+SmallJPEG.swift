internal import CJPEG
internal import CVipsShim
import FileFacts
import Glibc

/// A JPEG photo's small tile decoded by libjpeg straight from its file
/// (`CJPEG`), shrunk as it is decoded just as libvips' thumbnail shrinks
/// it on load, then turned and resized by libvips from memory: libvips'
/// loader around such a decode (a source, every loader sniffed, the header
/// read twice, its pipeline) costs more than the decode itself, and
/// `--pick` looks at every photo once, small.
extension ImageFile {
    /// The tile of `tile(descriptor:)` (cover, then a centred crop; its
    /// profile not applied) when the JPEG is one `CJPEG` decodes (8-bit
    /// colour or grey, no warning from libjpeg) within `maxBytes`; nil when
    /// it is not, for `tile(descriptor:)` to decode, whose answer (pixels or
    /// error) is then the file's. The file's structure is checked first, as
    /// every decode's is.
    public static func smallJPEGTile(descriptor: Int32, width: Int, height: Int, header: ImageHeader,
                                     maxBuffer: Int, maxBytes: Int) throws -> PixelBuffer? {
        guard header.format == "jpeg", header.media == nil, header.bands == 3 || header.bands == 1,
              width > 0, height > 0 else { return nil }
        try Vips.start()
        let structure = try StructureCheck.check(descriptor: descriptor, maxBuffer: maxBuffer)
        try refuseCameraMedia(structure)
        var pixels: UnsafeMutablePointer<UInt8>?
        var (decodedWidth, decodedHeight, bands): (Int32, Int32, Int32) = (0, 0, 0)
        guard cjpeg_decode_small(descriptor, Int32(jpegShrink(header, width, height)), max(0, maxBytes), &pixels,
                                 &decodedWidth, &decodedHeight, &bands) == 1, let pixels else { return nil }
        defer { free(pixels) }
        let count = Int(decodedWidth) * Int(decodedHeight) * Int(bands)
        guard let raw = cvips_image_new_from_memory(pixels, count, decodedWidth, decodedHeight, bands) else {
            throw VipsError.fromLibvips(.operation, "cannot take the decoded pixels")
        }
        // Tagged with the file's orientation, as libvips' loader tags it: the
        // thumbnail turns it after the resize, as it turns the file's.
        let image = Image(owning: raw)
        if header.orientation != 1 { vips_image_set_int(image.pointer, "orientation", Int32(header.orientation)) }
        // Resized on this thread (the caller runs a look a core): libvips'
        // pool would hand so small a resize to its workers and wait.
        return try computedHere {
            let resized = try image.apply(.operation, "cannot resize") {
                cvips_thumbnail_image($0, $1, Int32(width), Int32(height), CropMode.centre.interesting)
            }
            return try finished(resized, width: width, height: height, background: RGB(red: 0, green: 0, blue: 0))
        }
    }

    /// `body`, with every picture libvips computes in it computed on the
    /// calling thread: the same pixels, none of the pool's hand-offs.
    static func computedHere<R>(_ body: () throws -> R) rethrows -> R {
        let previous = cvips_compute_here(1)
        defer { cvips_compute_here(previous) }
        return try body()
    }

    /// libvips' thumbnail's shrink-on-load for a JPEG covering a tile:
    /// the largest of 8, 4 and 2 that leaves at least a factor of two for
    /// the resize after it (a block shrink alone sharpens), else none.
    static func jpegShrink(_ header: ImageHeader, _ width: Int, _ height: Int) -> Int {
        let shrink = min(Double(header.displayedWidth) / Double(width), Double(header.displayedHeight) / Double(height))
        return shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1
    }
}
