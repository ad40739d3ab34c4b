/// What `FaceRegions` reads of an `XMPPacket`'s walk: follows the elements
/// as they open and close and gathers, for each item of an
/// `mwg-rs:RegionList`, its type and its area, whichever of RDF's
/// spellings the writer chose.
struct RegionReader {
    static let regionsNamespace = "http://www.metadataworkinggroup.com/schemas/regions/"
    static let areaNamespace = "http://ns.adobe.com/xmp/sType/Area#"
    static let areaFields: Set<String> = ["x", "y", "w", "h", "unit"]

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
    private var items: [Item] = []

    mutating func read(_ event: XMPPacket.Event) -> XMPPacket.Step {
        switch event {
        case .open(let name):
            depth += 1
            if name.namespace == Self.regionsNamespace && name.local == "RegionList" && listDepth == nil {
                listDepth = depth
            } else if let list = listDepth, item == nil, name.namespace == XMPPacket.rdfNamespace, name.local == "li",
                      depth >= list + 1 {
                guard items.count < FaceRegions.maxRegions else { return .stop("more than \(FaceRegions.maxRegions) regions") }
                item = Item(depth: depth)
            } else if item != nil, areaDepth == nil, name.namespace == Self.regionsNamespace, name.local == "Area" {
                areaDepth = depth
            }
        case let .property(name, value):
            guard item != nil else { break }
            let value = Self.trimmed(value)
            if name.namespace == Self.regionsNamespace && name.local == "Type" && !value.isEmpty { item?.type = value }
            if areaDepth != nil, name.namespace == Self.areaNamespace, Self.areaFields.contains(name.local) {
                item?.area[name.local] = value
            }
        case .close:
            if depth == areaDepth { areaDepth = nil }
            if let open = item, depth == open.depth {
                items.append(open)
                item = nil
            }
            if depth == listDepth { listDepth = nil }
            depth -= 1
        }
        return .next
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
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
