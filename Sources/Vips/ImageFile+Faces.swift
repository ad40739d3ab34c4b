internal import CVipsShim
import FileFacts
import XMP

/// What decided a tile's crop: "faces", "attention", "entropy" or "centre";
/// and, when the photo's XMP could not (all) be used, why.
public struct TileFocus: Sendable, Equatable {
    public let focus: String
    public let problem: String?

    public init(focus: String, problem: String? = nil) {
        self.focus = focus
        self.problem = problem
    }
}

extension ImageFile {
    /// `tile(descriptor:...)` with `--crop faces`: the image scaled to
    /// cover the tile, upright, and the tile's window placed to keep the
    /// faces of its XMP's MWG face regions (`FaceWindow`). Without usable
    /// regions, the tile `attention` makes. Bad XMP never fails the image.
    public static func faceTile(descriptor: Int32, width: Int, height: Int, background: RGB,
                                header: ImageHeader? = nil,
                                maxBuffer: Int = StructureCheck.bufferLimit) throws -> (PixelBuffer, TileFocus) {
        let (structure, source, format, warnings) = try opened(descriptor, maxBuffer: maxBuffer)
        let attention = {
            try tile(descriptor: descriptor, width: width, height: height, crop: .attention, background: background,
                     header: header, maxBuffer: maxBuffer)
        }
        // The header only: libvips reads the XMP packet with it.
        guard let raw = cvips_image_new_from_source_strict(source.pointer) else {
            throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
        }
        let stored = try warnings.tagged(Image(owning: raw))
        let found = faces(of: stored)
        let quarterTurn = stored.orientation >= 5
        let uprightWidth = Double(quarterTurn ? stored.height : stored.width)
        let uprightHeight = Double(quarterTurn ? stored.width : stored.height)
        let scale = max(Double(width) / uprightWidth, Double(height) / uprightHeight)
        // A strip far from the tile's shape is cut before it is resized (see `tile`).
        guard !found.regions.isEmpty, uprightWidth * uprightHeight * scale * scale <= 8 * Double(width * height) else {
            return (try attention(), TileFocus(focus: "attention", problem: found.problem))
        }
        let boxWidth = max(width, Int((uprightWidth * scale).rounded(.up)))
        let boxHeight = max(height, Int((uprightHeight * scale).rounded(.up)))
        let pixels = try warnings.during {
            var cover: Image
            if format == "heif", let layout = structure.heifLayout {
                let small = try tiledHEIF(descriptor: descriptor, layout: layout, coverWidth: boxWidth, coverHeight: boxHeight)
                cover = try small.apply(.load, "cannot decode \(format)") {
                    cvips_thumbnail_image($0, $1, Int32(boxWidth), Int32(boxHeight), VIPS_INTERESTING_NONE)
                }
            } else if format == "heif", structure.shrunkDecodeBytes > 0,
               let small = shrunkHEIF(descriptor: descriptor, coverWidth: boxWidth, coverHeight: boxHeight) {
                cover = try small.apply(.load, "cannot decode \(format)") {
                    cvips_thumbnail_image($0, $1, Int32(boxWidth), Int32(boxHeight), VIPS_INTERESTING_NONE)
                }
            } else if ["jpeg", "webp", "heif"].contains(format) || (format == "tiff" && stored.format != VIPS_FORMAT_USHORT) {
                let again = try rewound(descriptor)
                var out: UnsafeMutablePointer<VipsImage>?
                let status = stored.interpretation == VIPS_INTERPRETATION_CMYK
                    ? cvips_thumbnail_source_cmyk(again.pointer, &out, Int32(boxWidth), Int32(boxHeight), VIPS_INTERESTING_NONE)
                    : cvips_thumbnail_source(again.pointer, &out, Int32(boxWidth), Int32(boxHeight), VIPS_INTERESTING_NONE, 1)
                guard status == 0, let out else {
                    throw VipsError.fromLibvips(.load, "cannot decode \(format)", loader: format)
                }
                cover = try warnings.tagged(Image(owning: out))
            } else {
                let deep = stored.format == VIPS_FORMAT_USHORT ? try deepResized(stored, width: width, height: height) : stored
                cover = try deep.apply(.load, "cannot decode \(format)") {
                    cvips_thumbnail_image($0, $1, Int32(boxWidth), Int32(boxHeight), VIPS_INTERESTING_NONE)
                }
            }
            if cover.width < width || cover.height < height {  // a rounding pixel short
                cover = try cover.apply(.operation, "cannot resize") {
                    cvips_thumbnail_image($0, $1, Int32(width), Int32(height), VIPS_INTERESTING_CENTRE)
                }
            }
            let upright = found.regions.map { FaceWindow.upright($0, orientation: stored.orientation) }
            let origin = FaceWindow.origin(of: upright, coverWidth: cover.width, coverHeight: cover.height,
                                           tileWidth: width, tileHeight: height)
            let window = try cover.cropped(x: origin.x, y: origin.y, width: width, height: height)
            return try materialise(normalised(window, background: background))
        }
        return (pixels, TileFocus(focus: "faces", problem: found.problem))
    }

    /// The upright face regions of the XMP of the image at `descriptor`,
    /// from its header alone (none without XMP, or where it cannot be read:
    /// bad XMP never fails the image).
    public static func faceRegions(descriptor: Int32) -> [FaceRegion] {
        guard (try? Vips.start()) != nil, let source = try? rewound(descriptor),
              (try? allowedFormat(source)) != nil else { return [] }
        guard let raw = cvips_image_new_from_source_strict(source.pointer) else {
            _ = VipsError.fromLibvips(.load, "")  // its message read and cleared, under the lock
            return []
        }
        let stored = Image(owning: raw)
        return faces(of: stored).regions.map { FaceWindow.upright($0, orientation: stored.orientation) }
    }

    /// The face regions of the image's XMP packet (none without one).
    static func faces(of image: Image) -> FaceRegions {
        var length = 0
        guard let packet = cvips_xmp(image.pointer, &length), length > 0 else { return FaceRegions() }
        return FaceRegions.parse(Array(UnsafeRawBufferPointer(start: packet, count: length)))
    }
}
