/// What the header of an image says, read without decoding pixels.
public struct ImageHeader: Sendable, Equatable {
    /// Stored size, before EXIF orientation.
    public let width: Int
    public let height: Int
    /// EXIF orientation, 1-8 (1 when absent).
    public let orientation: Int
    /// The loader libvips chose from the content ("jpeg", "png", ...).
    public let format: String
    /// Progressive JPEG or interlaced PNG: the decoder must hold the whole
    /// image (libjpeg keeps every coefficient) before it can shrink it.
    public let interlaced: Bool
    /// Samples per pixel as stored (1 grey, 3 RGB, 4 CMYK or RGBA, ...).
    public let bands: Int
    /// The largest buffer the file's structure makes its decoder hold (a
    /// TIFF strip, a GIF canvas), or what a HEIF decode holds in all
    /// (`HEIFStructure.heldPerPixel`), from `StructureCheck`; 0 when unknown.
    public let structureBytes: Int
    /// EXIF DateTimeOriginal as YYYY-MM-DD, nil when absent or malformed.
    public let dateTaken: String?
    /// When the photo was taken, by its own metadata (EXIF, a RAW's), to
    /// the millisecond, with its clock's offset when known.
    public var takenAt: LocalDateTime? = nil
    /// What decoding a HEIF image small holds (`ImageFile.shrunkHEIF`),
    /// from `StructureCheck`; 0 when it is not decoded small.
    public var shrunkDecodeBytes: Int = 0
    /// Where the tiles of a HEIF photo decoded tile by tile are
    /// (`ImageFile.tiledHEIF`), from `StructureCheck`; nil for the rest.
    public var heifLayout: HEIFLayout? {
        get { rare?.heifLayout }
        set { rare = RareFacts(heifLayout: newValue, media: media, camera: camera) }
    }
    /// What a RAW photo or a video holds besides its size (nil for images).
    public var media: MediaFacts? {
        get { rare?.media }
        set { rare = RareFacts(heifLayout: heifLayout, media: newValue, camera: camera) }
    }
    /// The photo's XMP rating, -1 (rejected) to 5 (`xmp:Rating`, from a
    /// sidecar or the file's own packet); nil when unrated (no rating, or 0,
    /// which XMP defines as unrated).
    public var rating: Int? = nil
    /// The photo's XMP colour label (`xmp:Label`: "Red", "Select"); nil when it has none.
    public var label: String? = nil
    /// Why the file's own XMP packet's rating and label were not used (not
    /// XML, a rating out of range); nil when all was well or it has none.
    public var xmpProblem: String? = nil
    /// Whether the file has an XMP packet of its own (what its face
    /// regions are read from: without one, there is nothing to read again).
    public var hasXMP = false
    /// The camera and its settings (EXIF, or a RAW photo's own); nil when it says none.
    public var camera: CameraFacts? {
        get { rare?.camera }
        set { rare = RareFacts(heifLayout: heifLayout, media: media, camera: newValue) }
    }
    /// The facts above that only some files have, out of line: a header
    /// held for each of 50,000 photos (a pick, a sort by date) is 220
    /// bytes, not the 576 they took inline. Never written once made: a
    /// setter makes a new one.
    private var rare: RareFacts? = nil

    public init(width: Int, height: Int, orientation: Int, format: String, interlaced: Bool = false, bands: Int = 3,
                structureBytes: Int = 0, dateTaken: String? = nil) {
        self.structureBytes = structureBytes
        self.dateTaken = dateTaken
        self.width = width
        self.height = height
        self.orientation = orientation
        self.format = format
        self.interlaced = interlaced
        self.bands = bands
    }

    /// Equal size, orientation and format (what decides the tile).
    public static func == (lhs: ImageHeader, rhs: ImageHeader) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.orientation == rhs.orientation
            && lhs.format == rhs.format
    }

    /// About how many bytes decoding this image to a tile holds at its peak:
    /// the whole image for a progressive JPEG (16-bit coefficients) or an
    /// interlaced PNG; a fraction of it where libvips shrinks on load or
    /// streams rows. An estimate for scheduling, not a limit.
    ///
    /// For a progressive JPEG the structure check counts the coefficients
    /// exactly from the frame's sampling factors (3 bytes a pixel for 4:2:0,
    /// 4 for 4:2:2, 6 for 4:4:4). Every decode also holds libvips' own
    /// working set (region buffers, the decoder's rows): about 5 MiB of
    /// resident memory for a JPEG shrunk on load, whatever its size, in
    /// `collage` as in a bare C program calling libvips' thumbnail. Measured
    /// here: a 5120x2880 4:4:4 wallpaper peaked 89.5 MiB above the process
    /// (84.4 counted + 5), a 1920x1200 baseline one 4.5.
    public var decodeBytes: Int {
        let pixels = Double(width) * Double(height)
        let bytes: Double
        switch (format, interlaced) {
        case ("jpeg", true) where structureBytes > 0: bytes = Double(structureBytes)
        case ("jpeg", true): bytes = pixels * Double(max(bands, 3)) * 2
        case (_, true): bytes = pixels * Double(bands) * 2
        case ("jpeg", false), ("webp", false): bytes = pixels * Double(bands) / 16
        default: bytes = Double(width) * Double(bands) * 2 * 256
        }
        return Self.workingSet + max(structureBytes, Int(min(bytes, Double(Int.max / 4))))
    }

    /// What libvips holds for any decode beside the image's own buffers.
    public static let workingSet = 5 << 20

    /// Orientations 5-8 turn the picture a quarter, swapping width and height.
    public var displayedWidth: Int { orientation >= 5 ? height : width }
    public var displayedHeight: Int { orientation >= 5 ? width : height }
    public var isPortrait: Bool { displayedHeight > displayedWidth }
    public var pixelCount: Int { width.multipliedReportingOverflow(by: height).overflow ? .max : width * height }
}

/// `ImageHeader`'s facts that only some files have (see `ImageHeader.rare`).
private final class RareFacts: Sendable {
    let heifLayout: HEIFLayout?
    let media: MediaFacts?
    let camera: CameraFacts?

    init(heifLayout: HEIFLayout?, media: MediaFacts?, camera: CameraFacts?) {
        (self.heifLayout, self.media, self.camera) = (heifLayout, media, camera)
    }
}
