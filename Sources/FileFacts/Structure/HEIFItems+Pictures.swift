/// The HEVC pictures an item is made of: a grid's tiles, or the item itself.
struct HEIFPictures {
    /// The pictures' items, row by row.
    var ids: [Int]
    /// The item's size: the grid's output size, or the picture's.
    var width: Int
    var height: Int
    var columns: Int
    var rows: Int
    /// Each picture's size (its `ispe`).
    var tileWidth: Int
    var tileHeight: Int
    /// The pictures' one `hvcC` (or `av1C`) payload.
    var configuration: [UInt8]
    /// HEVC or AV1.
    var codec: HEIFLayout.Codec
    /// Each picture's data: one run of bytes in the file.
    var tiles: [HEIFLayout.Extent]
}

extension HEIFItems {
    /// The coded pictures of `item`: a grid whose tiles are HEVC (or all
    /// AV1), share one configuration and one size, each one run of bytes in
    /// the file; or one HEVC or AV1 picture. Nil for anything else.
    func pictures(of item: Int, _ file: FileBytes) throws -> HEIFPictures? {
        let ids: [Int], width: Int, height: Int, columns: Int, rows: Int
        switch types[item] {
        case "grid":
            guard let grid = try smallData(item, file), grid.count >= 8 else { return nil }
            let large = grid[1] & 1 != 0
            rows = Int(grid[2]) + 1
            columns = Int(grid[3]) + 1
            guard grid.count >= (large ? 12 : 8) else { return nil }
            width = large ? grid.be32(4) : grid.be16(4)
            height = large ? grid.be32(8) : grid.be16(6)
            ids = references["dimg"]?[item] ?? []
            guard ids.count == rows * columns else { return nil }
        case "hvc1", "av01":
            ids = [item]
            (columns, rows, width, height) = (1, 1, 0, 0)
        default: return nil
        }
        guard let first = ids.first, let type = types[first], ["hvc1", "av01"].contains(type),
              ids.allSatisfy({ types[$0] == type }) else { return nil }
        let configType = type == "hvc1" ? "hvcC" : "av1C"
        guard let config = property(configType, of: first), let extent = property("ispe", of: first) else { return nil }
        let configBytes = Array(bytes[config.payload..<config.start + config.size])
        // One configuration and one size for every tile.
        for id in ids {
            guard let c = property(configType, of: id), let e = property("ispe", of: id),
                  c.start == config.start || Array(bytes[c.payload..<c.start + c.size]) == configBytes,
                  e.start == extent.start || Array(bytes[e.payload..<e.start + e.size]) == Array(bytes[extent.payload..<extent.start + extent.size])
            else { return nil }
        }
        var ispe = Reader(bytes, extent)
        ispe.at += 4
        let tileWidth = try ispe.uint(4), tileHeight = try ispe.uint(4)
        guard tileWidth > 0, tileHeight > 0 else { return nil }
        let tiles = try ids.map { id -> HEIFLayout.Extent in
            guard let location = locations[id], location.method == 0, location.extents.count == 1,
                  file.contains(location.extents[0].offset, location.extents[0].length) else {
                throw corrupt("heif", "a tile in more than one run")
            }
            return location.extents[0]
        }
        let grid = types[item] == "grid"
        return HEIFPictures(ids: ids, width: grid ? width : tileWidth, height: grid ? height : tileHeight,
                            columns: columns, rows: rows, tileWidth: tileWidth, tileHeight: tileHeight,
                            configuration: configBytes, codec: type == "hvc1" ? .hevc : .av1, tiles: tiles)
    }

    /// The alpha plane `item` beside the picture of `colour`, when it is
    /// pictures of the same grid coded as the colour's are (HEVC, or an
    /// AVIF's monochrome AV1: as many, the same size each, the same size
    /// in all); nil when it is not (libvips' loader then has the file).
    /// Premultiplied when the primary image says so (`prem`).
    func alphaPlane(_ item: Int, beside colour: HEIFPictures, _ file: FileBytes) throws -> HEIFLayout.Alpha? {
        guard let alpha = try pictures(of: item, file), alpha.width == colour.width, alpha.height == colour.height,
              alpha.columns == colour.columns, alpha.rows == colour.rows, alpha.tileWidth == colour.tileWidth,
              alpha.tileHeight == colour.tileHeight, alpha.codec == colour.codec,
              let (parameterSets, bits, _) = Self.configuration(alpha), (8...16).contains(bits)
        else { return nil }
        let premultiplied = references["prem"]?[primary]?.contains(item) ?? false
        return HEIFLayout.Alpha(tiles: alpha.tiles, configuration: parameterSets, bits: bits, premultiplied: premultiplied)
    }

    /// What the tiled decoder needs of `pictures`' configuration: its
    /// parameter sets (HEVC) or OBUs (AV1), bits a sample, chroma format.
    static func configuration(_ pictures: HEIFPictures) -> (parameterSets: [UInt8], bits: Int, chroma: Int)? {
        switch pictures.codec {
        case .hevc: return HEVCConfiguration.parse(pictures.configuration)
        case .av1:
            // av1C: marker and version, profile and level, then tier, high_bitdepth, twelve_bit, monochrome,
            // chroma_subsampling_x and _y; a byte of delay; the configuration OBUs.
            let c = pictures.configuration
            guard c.count >= 4, c[0] == 0x81 else { return nil }
            let bits = c[2] & 0x40 == 0 ? 8 : c[2] & 0x20 == 0 ? 10 : 12
            let chroma = c[2] & 0x10 != 0 ? 0 : c[2] & 0x0C == 0x0C ? 1 : c[2] & 0x08 != 0 ? 2 : 3
            return (Array(c[4...]), bits, chroma)
        }
    }
}
