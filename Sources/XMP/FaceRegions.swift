// FoundationXML's XMLParser (libxml2's SAX parser underneath, which libvips
// already loads): a real, streaming XML parser that ships with the
// toolchain. The XML packages of the fixed package set (SWXMLHash,
// XMLCoder) are both built on this same parser, and add a document tree or
// a Codable mapping that RDF's two spellings of one property (an attribute
// or an element) do not fit. Its price is measured in BENCHMARKS.md.
import Foundation
import FoundationXML

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
/// `y`, `w`, `h`), as attributes or as elements.
///
/// Bounded: a packet over `maxBytes`, a document type (entities), more
/// than `maxDepth` nested elements or `maxRegions` regions are not read
/// further. It never throws: what it cannot use is said in `problem`.
public struct FaceRegions: Sendable, Equatable {
    public static let maxBytes = 1 << 20
    public static let maxDepth = 64
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
        var bytes = packet[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        if bytes.isEmpty { return FaceRegions() }
        if bytes.count > maxBytes { return FaceRegions(problem: "XMP of \(bytes.count) bytes, more than \(maxBytes)") }
        // XMP is UTF-8 as JPEG, PNG, WebP, TIFF and HEIF carry it; and
        // FoundationXML traps on a name that is not (libxml2 hands it on).
        guard String(validating: bytes, as: UTF8.self) != nil else { return FaceRegions(problem: "XMP that is not UTF-8") }
        // XMP has no document type; one could only bring entities to expand.
        if contains(bytes, "<!DOCTYPE") || contains(bytes, "<!ENTITY") {
            return FaceRegions(problem: "XMP with a document type")
        }
        let reader = RegionReader()
        let parser = XMLParser(data: Data(withoutProcessingInstructions(bytes)))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        let parsed = parser.parse()
        var result = reader.regions()
        if let limit = reader.stopped {
            result.problem = limit
        } else if !parsed || parser.parserError != nil {
            // parse() can say true after an error: the error decides. Its
            // description is empty on Linux; libxml2's code is something.
            let code = parser.parserError.map { " \(($0 as NSError).code)" } ?? ""
            result = FaceRegions(problem: "not XML (libxml2 error\(code) at line \(parser.lineNumber))")
        }
        return result
    }

    /// `bytes` with every processing instruction (`<?…?>`, an unclosed one
    /// to the end) blanked out: XMP's `<?xpacket …?>` and the XML
    /// declaration carry nothing a region needs, and FoundationXML reads a
    /// null pointer on one without data (`<?x?>`, found by fuzzing).
    static func withoutProcessingInstructions(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out = Array(bytes)
        var index = 0
        while index + 1 < out.count {
            guard out[index] == UInt8(ascii: "<"), out[index + 1] == UInt8(ascii: "?") else {
                index += 1
                continue
            }
            var end = index + 2
            while end + 1 < out.count, !(out[end] == UInt8(ascii: "?") && out[end + 1] == UInt8(ascii: ">")) { end += 1 }
            end = min(out.count, end + 2)
            for blank in index..<end { out[blank] = UInt8(ascii: " ") }
            index = end
        }
        return out
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        var index = bytes.startIndex
        while index <= bytes.endIndex - needle.count {
            if bytes[index] == needle[0] && bytes[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
