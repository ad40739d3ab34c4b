import Foundation
import FoundationXML

/// XMLParser's delegate for `FaceRegions`: follows the elements as they
/// open and close and gathers, for each item of an `mwg-rs:RegionList`,
/// its type and its area, whichever of RDF's spellings the writer chose.
final class RegionReader: NSObject, XMLParserDelegate {
    static let regionsNamespace = "http://www.metadataworkinggroup.com/schemas/regions/"
    static let areaNamespace = "http://ns.adobe.com/xmp/sType/Area#"
    static let rdfNamespace = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    /// One item of the list as read so far.
    struct Item {
        var depth: Int
        var type: String?
        var area: [String: String] = [:]
    }

    private var depth = 0
    /// The depth of the open `RegionList` element, if one is open.
    private var listDepth: Int?
    private var item: Item?
    /// Inside the item's `mwg-rs:Area`: its depth.
    private var areaDepth: Int?
    private var text = ""
    private var items: [Item] = []
    /// Why reading stopped early, if it did.
    private(set) var stopped: String?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        depth += 1
        text = ""
        guard depth <= FaceRegions.maxDepth else { return stop(parser, "XMP nested more than \(FaceRegions.maxDepth) deep") }
        let namespace = namespaceURI ?? ""
        if namespace == Self.regionsNamespace && name == "RegionList" && listDepth == nil {
            listDepth = depth
        } else if let list = listDepth, item == nil, namespace == Self.rdfNamespace, name == "li", depth >= list + 1 {
            guard items.count < FaceRegions.maxRegions else {
                return stop(parser, "more than \(FaceRegions.maxRegions) regions")
            }
            item = Item(depth: depth)
        } else if item != nil, areaDepth == nil, namespace == Self.regionsNamespace, name == "Area" {
            areaDepth = depth
        }
        guard item != nil else { return }
        // Properties written as attributes (rdf:Description mwg-rs:Type="Face",
        // mwg-rs:Area stArea:x="0.5" ...).
        for (key, value) in attributes {
            let local = key.split(separator: ":").last.map(String.init) ?? key
            if local == "Type" && !key.hasPrefix("rdf:") { item?.type = value }
            if areaDepth != nil, ["x", "y", "w", "h", "unit"].contains(local) { item?.area[local] = value }
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        // Property values are short; a long run of text is nobody's.
        if text.utf8.count < 256 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        defer { depth -= 1; text = "" }
        let namespace = namespaceURI ?? ""
        let value = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if item != nil {
            if namespace == Self.regionsNamespace && name == "Type" && !value.isEmpty { item?.type = value }
            if areaDepth != nil, namespace == Self.areaNamespace, ["x", "y", "w", "h", "unit"].contains(name) {
                item?.area[name] = value
            }
        }
        if depth == areaDepth { areaDepth = nil }
        if let open = item, depth == open.depth {
            items.append(open)
            item = nil
        }
        if depth == listDepth { listDepth = nil }
    }

    private func stop(_ parser: XMLParser, _ reason: String) {
        stopped = reason
        parser.abortParsing()
    }

    /// The face regions read, each checked and cut to the image.
    func regions() -> FaceRegions {
        var result = FaceRegions()
        var outside = 0, empty = 0, unusable = 0
        for item in items where item.type == "Face" {
            let area = item.area
            guard (area["unit"] ?? "normalized") == "normalized",
                  let x = area["x"].flatMap(Double.init), let y = area["y"].flatMap(Double.init),
                  let w = area["w"].flatMap(Double.init), let h = area["h"].flatMap(Double.init),
                  x.isFinite, y.isFinite, w.isFinite, h.isFinite else { unusable += 1; continue }
            guard w > 0, h > 0 else { empty += 1; continue }
            let left = max(0, x - w / 2), right = min(1, x + w / 2)
            let top = max(0, y - h / 2), bottom = min(1, y + h / 2)
            guard left < right, top < bottom else { outside += 1; continue }
            result.regions.append(FaceRegion(left: left, top: top, right: right, bottom: bottom))
        }
        let problems = [(unusable, "without a normalised area"), (empty, "of zero size"), (outside, "outside the image")]
            .filter { $0.0 > 0 }.map { "\($0.0) face region\($0.0 == 1 ? "" : "s") \($0.1)" }
        if !problems.isEmpty { result.problem = problems.joined(separator: ", ") }
        return result
    }
}
