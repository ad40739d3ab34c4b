import FileFacts
import Media
import Vips

/// A photo's one small look for `--pick`: a JPEG's decoded by libjpeg
/// straight from its file (`ImageFile.smallJPEGTile`, libvips' own tile
/// at half its cost), any other decoded through `MediaFile` as any tile is
/// (a RAW's preview, a HEIC's smallest adequate image, a video's poster
/// frame; an image's profile not applied), to a size a few
/// hundred pixels across, and reduced at once to what the pick keeps: no
/// pixels outlive this call.
enum PickLook {
    /// The look's longer side: an eighth of the photo's (what JPEG
    /// shrink-on-load gives), but at least 256 (a smaller one hides blur)
    /// and at most 512; never larger than the photo.
    static func size(of header: ImageHeader) -> (width: Int, height: Int) {
        let width = max(1, header.displayedWidth), height = max(1, header.displayedHeight)
        let longest = max(width, height)
        let side = min(longest, min(512, max(256, longest / 8)))
        let scale = Double(side) / Double(longest)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// What decoding `header`'s look costs while it runs.
    static func cost(_ header: ImageHeader) -> Int {
        let size = size(of: header)
        return header.decodeBytes(forTile: size.width, size.height)
    }

    /// The photo's fingerprint and score from its look at `descriptor`;
    /// its rating is its header's (its XMP's, or its sidecar's).
    static func look(descriptor: Int32, header: ImageHeader,
                     maxBuffer: Int) throws -> (fingerprint: UInt64, score: PickScore) {
        let size = size(of: header)
        // A JPEG photo's look straight from libjpeg (the same pixels, at half
        // the cost of libvips' loader); any other file's, and a JPEG libjpeg
        // warns of, through the tile every image gets. In grey, a profile
        // moves a few levels: not applied (lcms' transform, made for each
        // photo, cost more).
        let pixels = try ImageFile.smallJPEGTile(descriptor: descriptor, width: size.width, height: size.height,
                                                 header: header, maxBuffer: maxBuffer, maxBytes: cost(header))
            ?? MediaFile.tile(descriptor: descriptor, width: size.width, height: size.height, crop: .centre,
                              background: RGB(red: 0, green: 0, blue: 0), header: header, maxBuffer: maxBuffer,
                              colourManaged: false).pixels
        let grey = GreyLook(pixels)
        return (Fingerprint.of(grey), PickScore(grey, faces: faces(descriptor: descriptor, header: header),
                                                rating: header.rating, pixels: header.width * header.height))
    }

    /// The face regions of an image's XMP, upright (none for a RAW photo or
    /// a video, nor for an image whose header found no XMP packet: the
    /// image is not opened again for nothing).
    private static func faces(descriptor: Int32, header: ImageHeader)
        -> [(left: Double, top: Double, right: Double, bottom: Double)] {
        guard header.media == nil, header.hasXMP else { return [] }
        return ImageFile.faceRegions(descriptor: descriptor).map { ($0.left, $0.top, $0.right, $0.bottom) }
    }
}
