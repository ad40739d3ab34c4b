/// Where the pictures of a HEIF photo's primary image are, read from its
/// `meta` box, for the decoder that takes them one tile at a time
/// (`ImageFile.tiledHEIF`): a grid of HEVC tiles (a phone's 12 to 200 MP
/// photo, a camera's `.hif`), or one HEVC picture deeper than 8 bits or of
/// HDR colour, as a grid of one. libheif 1.15 decodes a grid whole (the
/// full-size RGB, then any shrinking), and its API gives no access to a
/// grid's tiles; this is what lets each be decoded and shrunk on its own.
public struct HEIFLayout: Sendable, Equatable {
    /// One tile's coded data: one run of bytes in the file.
    public struct Extent: Sendable, Equatable {
        /// Where the bytes start in the file.
        public var offset: Int
        /// How many bytes.
        public var length: Int
    }

    /// An `nclx` colour box (ITU-T H.273 code points).
    public struct Colour: Sendable, Equatable {
        /// Colour primaries (1 BT.709, 9 BT.2020, 12 Display P3).
        public var primaries: Int
        /// Transfer characteristics (1 BT.709, 13 sRGB, 16 PQ, 18 HLG).
        public var transfer: Int
        /// Matrix coefficients (1 BT.709, 5 and 6 BT.601, 9 BT.2020).
        public var matrix: Int
        /// Full-range samples (else limited: 16-235 for 8 bits).
        public var fullRange: Bool
    }

    /// A transformation of the primary image, in the order the file lists them.
    public enum Transform: Sendable, Equatable {
        /// `irot`: quarter turns anticlockwise.
        case rotate(quarters: Int)
        /// `imir`, as libheif 1.15 reads it: axis 1 swaps left and right, 0 top and bottom.
        case mirror(axis: Int)
        /// `clap`: the clean aperture's width, height and centre offsets, as fractions.
        case crop(width: Double, height: Double, horizontalOffset: Double, verticalOffset: Double)
    }

    /// An alpha plane beside the picture (an auxiliary image of the same
    /// grid, as phones and libheif write it): its tiles, one for each of
    /// the picture's, the same size.
    public struct Alpha: Sendable, Equatable {
        /// Row by row, as the picture's.
        public var tiles: [Extent]
        /// Its tiles' parameter sets (or OBUs), as `HEIFLayout.configuration`.
        public var configuration: [UInt8]
        /// Bits per sample.
        public var bits: Int
        /// Whether the picture's colours are premultiplied by it (a `prem` reference).
        public var premultiplied: Bool
    }

    /// How the tiles are coded.
    public enum Codec: Int, Sendable, Equatable {
        /// HEVC (`hvc1`, `hvcC`): a HEIC.
        case hevc = 0
        /// AV1 (`av01`, `av1C`): an AVIF.
        case av1 = 1
    }

    /// The stored picture's width: the grid's output size, or the image's extent.
    public var width: Int
    /// The stored picture's height.
    public var height: Int
    /// Tiles across.
    public var columns: Int
    /// Tiles down.
    public var rows: Int
    /// Each tile's width (its `ispe`).
    public var tileWidth: Int
    /// Each tile's height.
    public var tileHeight: Int
    /// Row by row.
    public var tiles: [Extent]
    /// The tiles' parameter sets (VPS, SPS, PPS, SEI), each after a 4-byte
    /// big-endian length, as the tiles' own NAL units are; for AV1, the
    /// `av1C` box's OBUs (the sequence header), put before each tile's own.
    public var configuration: [UInt8]
    /// Luma bits per sample.
    public var bits: Int
    /// The chroma format: 0 mono, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chroma: Int
    /// The primary image's transformations, in the file's order.
    public var transforms: [Transform]
    /// The tiles' colour box (what libheif converts each with), else the
    /// primary image's; nil: the stream's own.
    public var colour: Colour?
    /// The primary image's colour box: what its transfer and primaries are.
    public var imageColour: Colour?
    /// The primary image's ICC profile (`prof` or `rICC`), empty when none.
    public var icc: [UInt8]
    /// `clli`'s MaxCLL in cd/m² (0 when absent).
    public var maxContentLight: Double
    /// `mdcv`'s mastering display peak in cd/m² (0 when absent).
    public var masteringPeak: Double
    /// The alpha plane, if any (coded as the picture is).
    public var alpha: Alpha? = nil
    /// How the tiles (and the alpha plane's) are coded.
    public var codec: Codec = .hevc

    /// Whether the picture is a grid of tiles (not one picture).
    public var isGrid: Bool { columns * rows > 1 || width != tileWidth || height != tileHeight }
}

extension HEIFLayout {
    /// The layout of the primary image in `meta` (the whole box), when it is one the tiled decoder takes:
    /// a grid whose tiles are HEVC or AV1, share one configuration and one size,
    /// each one run of bytes in the file; or one HEVC picture with more
    /// than 8 bits a sample or an HDR transfer; with an alpha plane of the
    /// same grid, if any. Nil for anything else (an 8-bit picture, one AV1 picture, an
    /// alpha plane of another shape, overlays, a table it cannot read).
    static func read(_ meta: [UInt8], _ file: FileBytes) -> HEIFLayout? {
        guard let items = try? HEIFItems(meta, file) else { return nil }
        return items.layout(file)
    }
}
