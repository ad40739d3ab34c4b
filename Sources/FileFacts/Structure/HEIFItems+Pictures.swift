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
    /// The pictures' one `hvcC` payload.
    var configuration: [UInt8]
    /// Each picture's data: one run of bytes in the file.
    var tiles: [HEIFLayout.Extent]
}

extension HEIFItems {
    /// The HEVC pictures of `item`: a grid whose tiles are HEVC, share one
    /// configuration and one size, each one run of bytes in the file; or
    /// one HEVC picture. Nil for anything else.
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
        case "hvc1":
            ids = [item]
            (columns, rows, width, height) = (1, 1, 0, 0)
        default: return nil
        }
        guard ids.allSatisfy({ types[$0] == "hvc1" }), let first = ids.first,
              let config = property("hvcC", of: first), let extent = property("ispe", of: first) else { return nil }
        let configBytes = Array(bytes[config.payload..<config.start + config.size])
        // One configuration and one size for every tile.
        for id in ids {
            guard let c = property("hvcC", of: id), let e = property("ispe", of: id),
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
                            configuration: configBytes, tiles: tiles)
    }

    /// The alpha plane `item` beside the picture of `colour`, when it is
    /// HEVC pictures of the same grid (as many, the same size each, the
    /// same size in all); nil when it is not (libvips' loader then has the
    /// file). Premultiplied when the primary image says so (`prem`).
    func alphaPlane(_ item: Int, beside colour: HEIFPictures, _ file: FileBytes) throws -> HEIFLayout.Alpha? {
        guard let alpha = try pictures(of: item, file), alpha.width == colour.width, alpha.height == colour.height,
              alpha.columns == colour.columns, alpha.rows == colour.rows, alpha.tileWidth == colour.tileWidth,
              alpha.tileHeight == colour.tileHeight,
              let (parameterSets, bits, _) = HEVCConfiguration.parse(alpha.configuration), (8...16).contains(bits)
        else { return nil }
        let premultiplied = references["prem"]?[primary]?.contains(item) ?? false
        return HEIFLayout.Alpha(tiles: alpha.tiles, configuration: parameterSets, bits: bits, premultiplied: premultiplied)
    }
}
