/// A face the photo's XMP marks: a rectangle in the image as stored
/// (before its EXIF orientation), in fractions of its width and height,
/// always inside [0, 1] and never empty.
public struct FaceRegion: Sendable, Equatable {
    public let left: Double
    public let top: Double
    public let right: Double
    public let bottom: Double

    public init(left: Double, top: Double, right: Double, bottom: Double) {
        (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
    }

    public var width: Double { right - left }
    public var height: Double { bottom - top }
}

/// The face regions of an XMP packet: MWG regions (`mwg-rs:Regions`, as
/// digiKam, Lightroom, Apple Photos and ExifTool write them) of type
/// `Face`, their areas given by normalised centre and size (`stArea:x`,
/// `y`, `w`, `h`), as attributes or as elements (read through
/// `XMPPacket`, which gives both spellings alike).
///
/// Bounded: a packet over `maxBytes`, a document type (entities), more
/// than `maxDepth` nested elements or `maxRegions` regions are not read
/// further. It never throws: what it cannot use is said in `problem`.
public struct FaceRegions: Sendable, Equatable {
    public static let maxBytes = XMPPacket.maxBytes
    public static let maxDepth = XMPPacket.maxDepth
    public static let maxRegions = 256

    /// The usable faces, in the packet's order.
    public var regions: [FaceRegion] = []
    /// Why (some of) the packet was not used: "not XML: ...", "2 face
    /// regions outside the image", ...; nil when all was well.
    public var problem: String? = nil

    public init(regions: [FaceRegion] = [], problem: String? = nil) {
        self.regions = regions
        self.problem = problem
    }

    /// Parses `packet` (the XMP's bytes, UTF-8; a trailing NUL is ignored).
    public static func parse(_ packet: [UInt8]) -> FaceRegions {
        var reader = RegionReader()
        switch XMPPacket.walk(packet, { event, _ in reader.read(event) }) {
        case .read:
            return reader.regions()
        case .stopped(let limit):
            var result = reader.regions()
            result.problem = limit
            return result
        case .refused(let problem):
            return FaceRegions(problem: problem)
        }
    }
}
