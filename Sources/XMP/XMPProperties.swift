/// What a photo's XMP says of it as a whole, as darktable, digiKam,
/// Lightroom and ExifTool write it: its `xmp:Rating` and `xmp:Label`,
/// properties of a resource at the top of `rdf:RDF` (an attribute of its
/// `rdf:Description` or an element in it), not of something inside it (an
/// entry of a history, a region). The first of each wins.
///
/// It never throws: what it cannot use is said in `problem`.
public struct XMPProperties: Sendable, Equatable {
    public static let xmpNamespace = "http://ns.adobe.com/xap/1.0/"

    /// -1 (rejected), 0 (unrated, as written) to 5; a fractional rating
    /// counts its whole stars. nil when the packet has none (or none usable).
    public var rating: Int?
    /// The label (`Red`, `Select`), trimmed; nil when it has none or an empty one.
    public var label: String?
    /// Why (some of) the packet was not used; nil when all was well.
    public var problem: String?

    public init(rating: Int? = nil, label: String? = nil, problem: String? = nil) {
        self.rating = rating
        self.label = label
        self.problem = problem
    }

    /// Parses `packet` (an XMP packet or a sidecar's bytes, UTF-8).
    public static func parse(_ packet: [UInt8]) -> XMPProperties {
        let rating = XMLName(xmpNamespace, "Rating"), label = XMLName(xmpNamespace, "Label")
        let rdf = XMLName(XMPPacket.rdfNamespace, "RDF")
        var result = XMPProperties()
        var ratingRead = false
        let outcome = XMPPacket.walk(packet) { event, path in
            guard case let .property(name, value) = event, name == rating || name == label,
                  path.count >= 2, path[path.endIndex - 2] == rdf else { return .next }
            let text = String(value.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            if name == label, result.label == nil, !text.isEmpty { result.label = text }
            if name == rating, !ratingRead {
                ratingRead = true
                if let stars = Double(text), stars == -1 || (0...5).contains(stars) {
                    result.rating = Int(stars.rounded(.down))
                } else {
                    result.problem = "a rating of '\(text.prefix(32))', not -1 to 5"
                }
            }
            return .next
        }
        switch outcome {
        case .read: return result
        case .stopped(let limit):
            result.problem = [result.problem, limit].compactMap { $0 }.joined(separator: ", ")
            return result
        case .refused(let problem): return XMPProperties(problem: problem)
        }
    }
}
