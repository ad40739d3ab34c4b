/// The item tables of a HEIF `meta` box, as far as `HEIFLayout` needs
/// them: each item's type, its data's extents, its properties (in the
/// order `ipma` associates them), the references between items, the
/// primary item. Every read is bounded by its box; anything unexpected
/// throws, and the layout is then nil (libvips' loader has the file).
struct HEIFItems {
    let bytes: [UInt8]
    private(set) var types: [Int: String] = [:]
    private(set) var locations: [Int: (method: Int, extents: [HEIFLayout.Extent])] = [:]
    private var properties: [BMFFBox] = []
    private var associations: [Int: [Int]] = [:]
    private(set) var references: [String: [Int: [Int]]] = [:]
    private(set) var primary = 0
    private var idat: BMFFBox?

    init(_ bytes: [UInt8], _ file: FileBytes) throws {
        self.bytes = bytes
        let header = try BMFFBox(bytes, local: 0, at: 0, parentEnd: bytes.count, file: file)
        for child in try BMFFBox.children(bytes, from: header.payload + 4, to: header.start + header.size, file: file) {
            var reader = Reader(bytes, child)
            switch child.type {
            case "pitm":
                let version = try reader.u8()
                reader.at += 3
                primary = try reader.uint(version == 0 ? 2 : 4)
            case "iinf":
                let version = try reader.u8()
                reader.at += 3 + (version == 0 ? 2 : 4)
                for entry in try BMFFBox.children(bytes, from: reader.at, to: child.start + child.size, file: file)
                where entry.type == "infe" {
                    var infe = Reader(bytes, entry)
                    let entryVersion = try infe.u8()
                    guard entryVersion >= 2 else { continue }
                    infe.at += 3
                    let id = try infe.uint(entryVersion == 2 ? 2 : 4)
                    infe.at += 2
                    types[id] = try infe.fourCC()
                }
            case "iloc": try readLocations(&reader)
            case "iref":
                let version = try reader.u8()
                reader.at += 3
                for reference in try BMFFBox.children(bytes, from: reader.at, to: child.start + child.size, file: file) {
                    var entry = Reader(bytes, reference)
                    let from = try entry.uint(version == 0 ? 2 : 4), count = try entry.uint(2)
                    var to: [Int] = []
                    for _ in 0..<count { to.append(try entry.uint(version == 0 ? 2 : 4)) }
                    references[reference.type, default: [:]][from, default: []] += to
                }
            case "iprp":
                for box in try BMFFBox.children(bytes, from: child.payload, to: child.start + child.size, file: file) {
                    if box.type == "ipco" {
                        properties = try BMFFBox.children(bytes, from: box.payload, to: box.start + box.size, file: file)
                    } else if box.type == "ipma" {
                        try readAssociations(Reader(bytes, box))
                    }
                }
            case "idat": idat = child
            default: break
            }
        }
    }

    private mutating func readLocations(_ reader: inout Reader) throws {
        let version = try reader.u8()
        reader.at += 3
        guard version <= 2 else { throw corrupt("heif", "iloc version \(version)") }
        let sizes = try reader.u8(), more = try reader.u8()
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseSize = more >> 4, indexSize = version == 0 ? 0 : more & 15
        let count = try reader.uint(version < 2 ? 2 : 4)
        for _ in 0..<count {
            let id = try reader.uint(version < 2 ? 2 : 4)
            let method = version == 0 ? 0 : try reader.uint(2) & 15
            let reference = try reader.uint(2), base = try reader.uint(baseSize), extentCount = try reader.uint(2)
            var extents: [HEIFLayout.Extent] = []
            for _ in 0..<extentCount {
                _ = try reader.uint(indexSize)
                let offset = try reader.uint(offsetSize), length = try reader.uint(lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow else { throw corrupt("heif", "an extent's offset") }
                extents.append(HEIFLayout.Extent(offset: start, length: length))
            }
            if reference == 0 { locations[id] = (method, extents) }
        }
    }

    private mutating func readAssociations(_ box: Reader) throws {
        var reader = box
        let version = try reader.u8()
        let flags = try reader.uint(3)
        let count = try reader.uint(4)
        guard count <= HEIFStructure.maxItems else { throw corrupt("heif", "ipma lists \(count) items") }
        for _ in 0..<count {
            let id = try reader.uint(version < 1 ? 2 : 4)
            let associationCount = try reader.u8()
            var indexes: [Int] = []
            for _ in 0..<associationCount {
                indexes.append(flags & 1 != 0 ? try reader.uint(2) & 0x7FFF : try reader.u8() & 0x7F)
            }
            associations[id] = indexes
        }
    }

    /// The properties of `item`, in its association order (index 0: none).
    private func properties(of item: Int) -> [BMFFBox] {
        (associations[item] ?? []).compactMap { $0 >= 1 && $0 <= properties.count ? properties[$0 - 1] : nil }
    }

    /// The payload of `item`'s one property of `type`.
    func property(_ type: String, of item: Int) -> BMFFBox? {
        properties(of: item).first { $0.type == type }
    }

    /// The bytes of `item`'s data, when it is small (a grid's description), from the file or `idat`.
    func smallData(_ item: Int, _ file: FileBytes) throws -> [UInt8]? {
        guard let location = locations[item], location.extents.count == 1, location.extents[0].length <= 64 else { return nil }
        let extent = location.extents[0]
        if location.method == 1 {
            guard let idat, extent.offset <= idat.size - (idat.payload - idat.start) - extent.length else { return nil }
            return Array(bytes[idat.payload + extent.offset..<idat.payload + extent.offset + extent.length])
        }
        return location.method == 0 ? try file.read(extent.offset, extent.length) : nil
    }

    func layout(_ file: FileBytes) -> HEIFLayout? { try? makeLayout(file) }
}

extension HEIFItems {
    private func makeLayout(_ file: FileBytes) throws -> HEIFLayout? {
        guard let pictures = try pictures(of: primary, file) else { return nil }
        guard let (parameterSets, bits, chroma) = Self.configuration(pictures) else { return nil }
        let first = pictures.ids[0]
        let imageColour = colour(of: primary), tileColour = colour(of: first)
        var layout = HEIFLayout(
            width: pictures.width, height: pictures.height, columns: pictures.columns, rows: pictures.rows,
            tileWidth: pictures.tileWidth, tileHeight: pictures.tileHeight, tiles: pictures.tiles,
            configuration: parameterSets, bits: bits, chroma: chroma, transforms: transforms(of: primary),
            colour: tileColour ?? imageColour, imageColour: imageColour ?? tileColour,
            icc: icc(of: primary), maxContentLight: 0, masteringPeak: 0)
        layout.codec = pictures.codec
        // An alpha plane beside the picture: of the same grid, else libvips' loader (a gain map or a depth map is
        // left aside, as libheif leaves it).
        for (aux, targets) in references["auxl"] ?? [:] where targets.contains(primary) {
            guard let auxC = property("auxC", of: aux) else { return nil }
            let urn = String(decoding: bytes[min(auxC.payload + 4, auxC.start + auxC.size)..<(auxC.start + auxC.size)], as: UTF8.self)
            guard urn.contains("alpha") || urn.hasPrefix("urn:mpeg:hevc:2015:auxid:1") else { continue }
            guard layout.alpha == nil, let alpha = try alphaPlane(aux, beside: pictures, file) else { return nil }
            layout.alpha = alpha
        }
        // Sizes the decoder's 32-bit arithmetic holds (--max-pixels and the buffer limit hold them further).
        let largest = 1 << 20
        guard layout.tileWidth <= largest, layout.tileHeight <= largest, layout.width <= largest, layout.height <= largest,
              layout.width > 0, layout.height > 0, product(layout.columns, layout.tileWidth) >= layout.width,
              product(layout.rows, layout.tileHeight) >= layout.height else { return nil }
        if let clli = property("clli", of: primary) ?? property("clli", of: first), clli.size >= 12 {
            layout.maxContentLight = Double(bytes.be16(clli.payload))
        }
        if let mdcv = property("mdcv", of: primary) ?? property("mdcv", of: first), mdcv.size >= 32 {
            layout.masteringPeak = Double(bytes.be32(mdcv.payload + 16)) / 10000
        }
        let hdr = [16, 18].contains(layout.imageColour?.transfer ?? 0)
        // One 8-bit SDR HEVC picture: chevc_decode_shrunk's, or libvips' loader with an alpha plane; one AV1 picture:
        // libvips' loader; as before.
        guard layout.isGrid || (layout.codec == .hevc && (bits > 8 || hdr)) else { return nil }
        return layout
    }

    private func colour(of item: Int) -> HEIFLayout.Colour? {
        for box in properties(of: item) where box.type == "colr" && box.size >= box.payload - box.start + 11 {
            guard bytes.fourCC(box.payload) == "nclx" else { continue }
            let at = box.payload + 4
            return HEIFLayout.Colour(primaries: bytes.be16(at), transfer: bytes.be16(at + 2), matrix: bytes.be16(at + 4),
                                     fullRange: bytes[at + 6] & 0x80 != 0)
        }
        return nil
    }

    private func icc(of item: Int) -> [UInt8] {
        guard let box = properties(of: item).first(where: {
            $0.type == "colr" && $0.start + $0.size >= $0.payload + 4 && ["prof", "rICC"].contains(bytes.fourCC($0.payload))
        }) else { return [] }
        return Array(bytes[box.payload + 4..<box.start + box.size])
    }

    private func transforms(of item: Int) -> [HEIFLayout.Transform] {
        properties(of: item).compactMap { box in
            let end = box.start + box.size
            switch box.type {
            case "irot" where box.payload < end: return .rotate(quarters: Int(bytes[box.payload] & 3))
            case "imir" where box.payload < end: return .mirror(axis: Int(bytes[box.payload] & 1))
            case "clap" where box.payload + 32 <= end:
                func fraction(_ at: Int) -> Double {
                    let n = Int32(bitPattern: UInt32(bytes.be32(at))), d = Int32(bitPattern: UInt32(bytes.be32(at + 4)))
                    return d == 0 ? 0 : Double(n) / Double(d)
                }
                return .crop(width: fraction(box.payload), height: fraction(box.payload + 8),
                             horizontalOffset: fraction(box.payload + 16), verticalOffset: fraction(box.payload + 24))
            default: return nil
            }
        }
    }
}
