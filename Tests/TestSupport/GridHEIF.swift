import Foundation
import Glibc

/// HEIF photos made in the tests as phones and cameras write them: a grid
/// of HEVC tiles (libheif 1.15 cannot encode grids, and libvips' heifsave
/// writes one picture). FFmpeg scales a photo to the grid's size, cuts it
/// into tiles (`untile`) and encodes each as an intra frame with x265, its
/// colour (`nclx`) and depth as asked; the frames' NAL units become the
/// tiles of a HEIF file written here box by box (ftyp, meta with its item
/// tables and the grid's description in idat, mdat).
public struct GridHEIF {
    /// The picture: the grid's output size (the tiles cover it, the last
    /// row and column cut), and the tiles' size.
    public var width: Int
    public var height: Int
    public var tile = 512
    /// 8, 10 or 12; the chroma format as FFmpeg names its pixel formats' ("420", "422").
    public var bits = 8
    public var chroma = "420"
    /// The nclx box (primaries, transfer, matrix, full range) on the grid
    /// and in the stream; nil: none.
    public var colour: (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)? = nil
    /// An irot of this many quarter turns anticlockwise on the grid (0: none).
    public var quarterTurns = 0
    /// FFmpeg filters run on the scaled photo before it is cut (e.g. a zscale to PQ).
    public var filters: [String] = []
    /// An alpha plane beside the picture, of the same grid (8-bit
    /// monochrome tiles, an auxiliary image with `auxC` alpha): the photo's
    /// own grey levels, dark where the photo is.
    public var alpha = false
    /// The picture's colours premultiplied by that alpha (in R'G'B', as
    /// FFmpeg's `premultiply` does), and a `prem` reference saying so.
    public var premultiplied = false
    /// "hevc" (a HEIC: x265 tiles) or "av1" (an AVIF: libaom's tiles, 8-bit 4:2:0; its alpha monochrome).
    public var codec = "hevc"

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var columns: Int { (width + tile - 1) / tile }
    public var rows: Int { (height + tile - 1) / tile }

    /// Writes the grid of `photo` at `path`; `scratch`: a folder for the coded tiles.
    /// The same grid of the same photo is encoded once a run (`SharedFixture`).
    public func write(from photo: String, to path: String, scratch: String) throws {
        let key = "GridHEIF \(width)x\(height) tile \(tile) bits \(bits) chroma \(chroma) colour \(String(describing: colour)) "
            + "turns \(quarterTurns) filters \(filters) alpha \(alpha) premultiplied \(premultiplied) codec \(codec) "
            + "from \(try Self.identity(photo))"
        try SharedFixture.copy(key, to: path) { made in try make(from: photo, to: made, scratch: scratch) }
    }

    /// `photo` in words that change when its bytes may have: its path,
    /// size, inode and modification time.
    static func identity(_ photo: String) throws -> String {
        var source = stat()
        guard stat(photo, &source) == 0 else { throw TestFailure("no photo at \(photo)") }
        return "\(photo) (\(source.st_size) bytes, inode \(source.st_ino), modified \(source.st_mtim.tv_sec).\(source.st_mtim.tv_nsec))"
    }

    /// Runs FFmpeg on `photo` with `arguments` (the input and the output
    /// stream named by the function), writing `stream`; the same command
    /// on the same photo is run once a run (the same tiles are coded for
    /// a grid with alpha and one without).
    func ffmpeg(_ photo: String, _ arguments: [String], stream: String) throws {
        try SharedFixture.copy("GridHEIF tiles: ffmpeg \(arguments.joined(separator: " ")) from \(try Self.identity(photo))",
                               to: stream) { made in
            try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-i", photo] + arguments + [made])
        }
    }

    private func make(from photo: String, to path: String, scratch: String) throws {
        var filters = self.filters
        if premultiplied {
            filters = ["format=gbrp", "split[colour][grey];[grey]format=gray[alpha];[colour][alpha]alphamerge",
                       "premultiply=inplace=1"] + filters
        }
        let format = "yuv\(chroma)p" + (bits > 8 ? "\(bits)le" : "")
        let (parameterSets, frames) = codec == "av1"
            ? try encodeAV1(photo, filters: filters, format: format, scratch: scratch + "/tiles-\(width)x\(height).obu")
            : try encode(photo, filters: filters, format: format, scratch: scratch + "/tiles-\(width)x\(height)-\(bits).hevc")
        var alphaTiles: (parameterSets: [[UInt8]], frames: [[UInt8]])? = nil
        if alpha {
            alphaTiles = codec == "av1"
                ? try encodeAV1(photo, filters: [], format: "gray", scratch: scratch + "/alpha-\(width)x\(height).obu")
                : try encode(photo, filters: [], format: "gray", scratch: scratch + "/alpha-\(width)x\(height).hevc")
        }
        try Data(file(parameterSets: parameterSets, frames: frames, alpha: alphaTiles)).write(to: URL(fileURLWithPath: path))
    }

    /// FFmpeg's filters: `photo` scaled to the tiles, through `filters`, in `format`, cut into tiles.
    func chain(filters: [String], format: String) -> String {
        // The conversion to YCbCr as the stream says (BT.601, limited range, when it says nothing).
        let matrix = [1: "bt709", 9: "bt2020"][colour?.matrix ?? 6] ?? "bt601"
        let scale = "scale=\(columns * tile):\(rows * tile):flags=bicubic"
            + (filters.isEmpty ? ":out_color_matrix=\(matrix):out_range=\(colour?.fullRange == true ? "full" : "limited")" : "")
        return ([scale] + filters + ["format=\(format)", "untile=\(columns)x\(rows)"]).joined(separator: ",")
    }

    /// The tiles of `photo` scaled, through `filters`, in `format`, coded by x265: the parameter sets and a frame a tile.
    private func encode(_ photo: String, filters: [String], format: String,
                        scratch stream: String) throws -> (parameterSets: [[UInt8]], frames: [[UInt8]]) {
        var params = ["keyint=1", "log-level=error", "info=0"]
        if let colour {
            params += ["colorprim=\(colour.primaries)", "transfer=\(colour.transfer)", "colormatrix=\(colour.matrix)",
                       "range=\(colour.fullRange ? "full" : "limited")"]
        }
        let chain = self.chain(filters: filters, format: format)
        try ffmpeg(photo, ["-vf", chain, "-c:v", "libx265", "-preset", "ultrafast",
                           "-x265-params", params.joined(separator: ":"), "-f", "hevc"], stream: stream)
        let units = Self.units(try [UInt8](Data(contentsOf: URL(fileURLWithPath: stream))))
        let parameterSets = units.filter { [32, 33, 34].contains(Self.type($0)) }
        var frames: [[UInt8]] = []
        for unit in units where Self.type(unit) < 32 {
            // A slice whose first_slice_segment_in_pic_flag is set starts a frame.
            if unit[2] & 0x80 != 0 || frames.isEmpty { frames.append([]) }
            frames[frames.count - 1] += Self.be32(unit.count) + unit
        }
        guard frames.count == columns * rows, parameterSets.count >= 3 else {
            throw TestFailure("x265 gave \(frames.count) frames for \(columns * rows) tiles")
        }
        return (Array(parameterSets.prefix(3)), frames)
    }

    // MARK: - Boxes

    private typealias Tiles = (parameterSets: [[UInt8]], frames: [[UInt8]])

    private func file(parameterSets: [[UInt8]], frames: [[UInt8]], alpha: Tiles?) -> [UInt8] {
        let brand = codec == "av1" ? "avif" : "heic"
        let ftyp = Self.box("ftyp", Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1\(brand)".utf8))
        // The meta box's size does not depend on the offsets: made twice.
        var meta = self.meta((parameterSets, frames), alpha: alpha, mdatStart: 0)
        meta = self.meta((parameterSets, frames), alpha: alpha, mdatStart: ftyp.count + meta.count + 8)
        return ftyp + meta + Self.box("mdat", (frames + (alpha?.frames ?? [])).flatMap { $0 })
    }

    private func meta(_ picture: Tiles, alpha: Tiles?, mdatStart: Int) -> [UInt8] {
        let frames = picture.frames
        let grid = 1, tiles = Array(2...(frames.count + 1))
        // The alpha plane: a grid item of its own, and its tiles.
        let alphaGrid = frames.count + 2, alphaTiles = alpha == nil ? [] : Array((alphaGrid + 1)...(alphaGrid + frames.count))
        let grids = alpha == nil ? [grid] : [grid, alphaGrid]
        let hdlr = Self.full("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let pitm = Self.full("pitm", Self.be16(grid))
        var entries = Self.full("infe", Self.be16(grid) + [0, 0] + Array("grid".utf8) + [0], version: 2)
        let tileType = codec == "av1" ? "av01" : "hvc1"
        for id in tiles { entries += Self.full("infe", Self.be16(id) + [0, 0] + Array(tileType.utf8) + [0], version: 2, flags: 1) }
        if alpha != nil {
            entries += Self.full("infe", Self.be16(alphaGrid) + [0, 0] + Array("grid".utf8) + [0], version: 2, flags: 1)
            for id in alphaTiles {
                entries += Self.full("infe", Self.be16(id) + [0, 0] + Array(tileType.utf8) + [0], version: 2, flags: 1)
            }
        }
        let iinf = Self.full("iinf", Self.be16(tiles.count + alphaTiles.count + grids.count) + entries)
        var references = Self.box("dimg", Self.be16(grid) + Self.be16(tiles.count) + tiles.flatMap { Self.be16($0) })
        if alpha != nil {
            references += Self.box("dimg", Self.be16(alphaGrid) + Self.be16(alphaTiles.count) + alphaTiles.flatMap { Self.be16($0) })
            references += Self.box("auxl", Self.be16(alphaGrid) + Self.be16(1) + Self.be16(grid))
            if premultiplied { references += Self.box("prem", Self.be16(grid) + Self.be16(1) + Self.be16(alphaGrid)) }
        }
        let iref = Self.full("iref", references)
        var properties = [codec == "av1" ? Self.av1C(picture.parameterSets[0]) : hvcC(picture.parameterSets), Self.full("ispe", Self.be32(tile) + Self.be32(tile)),
                          Self.full("ispe", Self.be32(width) + Self.be32(height))]
        var gridProperties: [UInt8] = [3]
        if let colour {
            properties.append(Self.box("colr", Array("nclx".utf8) + Self.be16(colour.primaries) + Self.be16(colour.transfer)
                                       + Self.be16(colour.matrix) + [colour.fullRange ? 0x80 : 0]))
            gridProperties.append(UInt8(properties.count))
        }
        if quarterTurns % 4 != 0 {
            properties.append(Self.box("irot", [UInt8(quarterTurns % 4)]))
            gridProperties.append(0x80 | UInt8(properties.count))
        }
        var associations = Self.be16(grid) + [UInt8(gridProperties.count)] + gridProperties
        for id in tiles { associations += Self.be16(id) + [2, 0x81, 2] }
        if let alpha {
            properties.append(codec == "av1" ? Self.av1C(alpha.parameterSets[0], monochrome: true)
                                               : hvcC(alpha.parameterSets, chromaIndex: 0, depth: 8))
            let alphaConfiguration = UInt8(properties.count)
            let urn = codec == "av1" ? "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha" : "urn:mpeg:hevc:2015:auxid:1"
            properties.append(Self.full("auxC", Array(urn.utf8) + [0]))
            associations += Self.be16(alphaGrid) + [2, 3, 0x80 | UInt8(properties.count)]
            for id in alphaTiles { associations += Self.be16(id) + [2, 0x80 | alphaConfiguration, 2] }
        }
        let ipma = Self.full("ipma", Self.be32(tiles.count + alphaTiles.count + grids.count) + associations)
        let iprp = Self.box("iprp", Self.box("ipco", properties.flatMap { $0 }) + ipma)
        let idat = Self.box("idat", [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + Self.be16(width) + Self.be16(height))
        // Both grids' descriptions are the same 8 bytes of idat.
        var locations: [UInt8] = []
        for id in grids { locations += Self.be16(id) + [0, 1] + [0, 0] + Self.be16(1) + Self.be32(0) + Self.be32(8) }
        var offset = mdatStart
        for (id, frame) in zip(tiles + alphaTiles, frames + (alpha?.frames ?? [])) {
            locations += Self.be16(id) + [0, 0] + [0, 0] + Self.be16(1) + Self.be32(offset) + Self.be32(frame.count)
            offset += frame.count
        }
        let iloc = Self.full("iloc", [0x44, 0x00] + Self.be16(tiles.count + alphaTiles.count + grids.count) + locations, version: 1)
        return Self.full("meta", hdlr + pitm + iinf + iref + iprp + idat + iloc)
    }

    /// The tiles' decoder configuration: profile bytes from the SPS, the
    /// chroma format and depths, 4-byte NAL lengths, the parameter sets.
    private func hvcC(_ sets: [[UInt8]], chromaIndex: UInt8? = nil, depth: Int? = nil) -> [UInt8] {
        let sps = sets[1]
        let profile = Array(sps[3..<15])  // general profile_tier_level: 12 bytes after the SPS's first byte
        let chromaIndex: UInt8 = chromaIndex ?? (chroma == "420" ? 1 : chroma == "422" ? 2 : 3)
        let bits = depth ?? self.bits
        var bytes: [UInt8] = [1] + profile.prefix(1) + profile[1..<5] + profile[5..<11] + [profile[11]]
        bytes += [0xF0, 0x00, 0xFC, 0xFC | chromaIndex, 0xF8 | UInt8(bits - 8), 0xF8 | UInt8(bits - 8), 0, 0, 0x0F, 3]
        for set in sets {
            bytes += [0x80 | Self.type(set)] + Self.be16(1) + Self.be16(set.count) + set
        }
        return Self.box("hvcC", bytes)
    }

    private static func units(_ stream: [UInt8]) -> [[UInt8]] {
        var starts: [(start: Int, codeLength: Int)] = []
        var i = 0
        while i + 3 <= stream.count {
            if stream[i] == 0, stream[i + 1] == 0, stream[i + 2] == 1 {
                starts.append((i + 3, 3))
                i += 3
            } else { i += 1 }
        }
        return starts.enumerated().map { index, start in
            var end = index + 1 < starts.count ? starts[index + 1].start - 3 : stream.count
            while end > start.start, stream[end - 1] == 0 { end -= 1 }  // a 4-byte start code's zero, trailing zeros
            return Array(stream[start.start..<end])
        }
    }

    private static func type(_ unit: [UInt8]) -> UInt8 { (unit[0] >> 1) & 0x3F }
    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(payload.count + 8) + Array(type.utf8) + payload }
    static func full(_ type: String, _ payload: [UInt8], version: UInt8 = 0, flags: UInt8 = 0) -> [UInt8] {
        box(type, [version, 0, 0, flags] + payload)
    }
}
