import CollageTestSupport
import XCTest
@testable import Vips

/// HEIF grids and deep or HDR pictures decoded tile by tile
/// (`ImageFile.tiledHEIF`), made as phones and cameras write them
/// (`GridHEIF`: x265 tiles in a grid of our own writing): a 48 MP grid
/// within the budget and close to libvips' full decode of it, upright as
/// its irot says; one with an alpha plane likewise, premultiplied or not; a camera's 10-bit 4:2:2 picture, a PQ and an HLG one
/// close to the photo they were made from (the HDR ones tone-mapped, where
/// libvips' own decode shows them grey and dull).
final class HEIFTiledTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func grid(_ grid: GridHEIF, named name: String, photo: String = "raindrops") throws -> String {
        let path = folder.file(name)
        try grid.write(from: samplesDirectory + "/\(photo).jpg", to: path, scratch: folder.path)
        return path
    }

    private func tile(of path: String, width: Int, height: Int) throws -> PixelBuffer {
        try withDescriptor(path) { descriptor in
            let header = try ImageFile.header(descriptor: descriptor)
            return try ImageFile.tile(descriptor: descriptor, width: width, height: height, background: .white, header: header)
        }
    }

    /// libvips' thumbnail (the `vips` command) of `path`, cover then centre crop.
    private func reference(_ path: String, width: Int, height: Int, force: Bool = false) throws -> PixelBuffer {
        let png = folder.file("reference-\(width)x\(height)-\((path as NSString).lastPathComponent).png")
        try runTool("vips", ["thumbnail", path, png, "\(width)", "--height", "\(height)", "--size", force ? "force" : "both",
                             "--crop", "centre"])
        return try ImageFile.decode(bytes: readBytes(png))
    }

    /// The 600x450 tile of `path`, decoded tile by tile (not whole by
    /// libheif), within a mean difference of 2 of libvips' full decode.
    @discardableResult
    private func tiledCloseToAFullDecode(_ path: String, _ name: String,
                                         file: StaticString = #filePath, line: UInt = #line) throws -> PixelBuffer {
        let before = ImageFile.heifTiledDecodes
        let tiled = try tile(of: path, width: 600, height: 450)
        XCTAssertEqual(ImageFile.heifTiledDecodes, before + 1, "decoded tile by tile, not whole by libheif",
                       file: file, line: line)
        XCTAssertTile(tiled, width: 600, height: 450, file: file, line: line)
        let difference = tiled.meanDifference(from: try reference(path, width: 600, height: 450))
        print("\(name): mean difference \(difference) from a full decode")
        XCTAssertLessThan(difference, 2, file: file, line: line)
        return tiled
    }

    /// An iPhone's 48 MP grid (8064x6048, 16x12 tiles of 512, the last
    /// column cut): its header is not too large for the default budget,
    /// a 600x450 tile is counted under 16 MiB (two fit the 116 MiB budget), and
    /// the tile is libvips' full decode's within a small mean difference.
    func test48MegapixelGridIsDecodedTileByTileCloseToAFullDecode() throws {
        let heic = try grid(GridHEIF(width: 8064, height: 6048), named: "48mp.heic")
        let header = try withDescriptor(heic) { try ImageFile.header(descriptor: $0) }
        XCTAssertEqual([header.width, header.height], [8064, 6048])
        let layout = try XCTUnwrap(header.heifLayout)
        XCTAssertEqual([layout.columns, layout.rows, layout.tileWidth], [16, 12, 512])
        XCTAssertLessThan(header.decodeBytes(forTile: 600, 450), 16 << 20, "counted about 11 MiB")
        try tiledCloseToAFullDecode(heic, "48 MP grid")
    }

    /// A 48 MP grid with an alpha plane of the same grid (an auxiliary
    /// image of 8-bit monochrome tiles, as libheif writes one): its alpha
    /// tiles decoded and shrunk beside the colour's, counted under 16 MiB
    /// for a 600x450 tile (a whole decode holds 8064x6048x4 bytes, 186
    /// MiB), and flattened onto the background close to libvips' full
    /// decode flattened onto it; far from the picture without its alpha.
    func test48MegapixelGridWithAlphaIsDecodedTileByTileCloseToAFullDecode() throws {
        var phone = GridHEIF(width: 8064, height: 6048)
        phone.alpha = true
        let heic = try grid(phone, named: "48mp-alpha.heic")
        let header = try withDescriptor(heic) { try ImageFile.header(descriptor: $0) }
        XCTAssertEqual([header.width, header.height, header.bands], [8064, 6048, 4])
        let alpha = try XCTUnwrap(header.heifLayout?.alpha, "the alpha plane is read beside the grid")
        XCTAssertEqual([alpha.tiles.count, alpha.bits], [16 * 12, 8])
        XCTAssertFalse(alpha.premultiplied)
        XCTAssertLessThan(header.decodeBytes(forTile: 600, 450), 16 << 20, "counted about 12 MiB")
        let tiled = try tiledCloseToAFullDecode(heic, "48 MP grid with alpha")
        var opaque = phone
        opaque.alpha = false
        let withoutAlpha = tiled.meanDifference(from: try tile(of: try grid(opaque, named: "48mp-opaque.heic"), width: 600, height: 450))
        print("48 MP grid with alpha: mean difference \(withoutAlpha) from the opaque picture")
        XCTAssertGreaterThan(withoutAlpha, 10, "the alpha is applied")
    }

    /// A grid whose colours are premultiplied by its alpha (`prem`, as
    /// libheif reports it) is divided by it before it is flattened: its
    /// tile is the straight-alpha grid's; libvips 8.14 (which flattens
    /// the premultiplied colours as they are) shows it darker.
    func testPremultipliedAlphaGridIsTheStraightOne() throws {
        var straight = GridHEIF(width: 2048, height: 1536)
        straight.alpha = true
        var premultiplied = straight
        premultiplied.premultiplied = true
        let heic = try grid(premultiplied, named: "premultiplied.heic")
        let header = try withDescriptor(heic) { try ImageFile.header(descriptor: $0) }
        XCTAssertEqual(header.heifLayout?.alpha?.premultiplied, true)
        let tiled = try tile(of: heic, width: 400, height: 300)
        let expected = try tile(of: try grid(straight, named: "straight.heic"), width: 400, height: 300)
        let difference = tiled.meanDifference(from: expected)
        let libvips = try reference(heic, width: 400, height: 300).meanDifference(from: expected)
        print("premultiplied alpha: mean difference \(difference) from the straight grid, \(libvips) as libvips shows it")
        XCTAssertLessThan(difference, 3)
        XCTAssertGreaterThan(libvips, 2 * difference)
    }

    /// A 48 MP AVIF grid (AV1 tiles of 512, coded by libaom): decoded tile
    /// by tile through dav1d (libheif 1.15 decodes it whole, and has no
    /// call that decodes one tile), counted under 16 MiB for a 600x450
    /// tile, close to libvips' full decode.
    func test48MegapixelAVIFGridIsDecodedTileByTileCloseToAFullDecode() throws {
        var avif = GridHEIF(width: 8064, height: 6048)
        avif.codec = "av1"
        let path = try grid(avif, named: "48mp.avif")
        let header = try withDescriptor(path) { try ImageFile.header(descriptor: $0) }
        XCTAssertEqual([header.width, header.height], [8064, 6048])
        let layout = try XCTUnwrap(header.heifLayout, "the AV1 grid is read")
        XCTAssertEqual(layout.codec, .av1)
        XCTAssertEqual([layout.columns, layout.rows, layout.bits], [16, 12, 8])
        XCTAssertLessThan(header.decodeBytes(forTile: 600, 450), 16 << 20, "counted about 11 MiB")
        try tiledCloseToAFullDecode(path, "48 MP AVIF grid")
    }

    /// A 48 MP AVIF grid with an alpha plane of the same grid (monochrome
    /// AV1 tiles, an auxiliary image with AVIF's alpha `auxC`): both
    /// decoded tile by tile through dav1d, counted under 16 MiB for a
    /// 600x450 tile, close to libvips' full decode, the alpha applied.
    func test48MegapixelAVIFGridWithAlphaIsDecodedTileByTile() throws {
        var avif = GridHEIF(width: 8064, height: 6048)
        (avif.codec, avif.alpha) = ("av1", true)
        let path = try grid(avif, named: "48mp-alpha.avif")
        let header = try withDescriptor(path) { try ImageFile.header(descriptor: $0) }
        XCTAssertEqual([header.width, header.height, header.bands], [8064, 6048, 4])
        let layout = try XCTUnwrap(header.heifLayout, "the AV1 grid and its alpha are read")
        XCTAssertEqual(layout.codec, .av1)
        XCTAssertEqual([layout.alpha?.tiles.count, layout.alpha?.bits], [16 * 12, 8])
        XCTAssertLessThan(header.decodeBytes(forTile: 600, 450), 16 << 20, "counted about 12 MiB")
        let tiled = try tiledCloseToAFullDecode(path, "48 MP AVIF grid with alpha")
        avif.alpha = false
        let opaque = try tile(of: try grid(avif, named: "48mp-opaque.avif"), width: 600, height: 450)
        XCTAssertGreaterThan(tiled.meanDifference(from: opaque), 10, "the alpha is applied")
    }

    /// An irot on the grid turns the small picture as libheif turns the
    /// whole one: the header shows it portrait, the tile matches.
    func testAQuarterTurnedGridIsUpright() throws {
        var turned = GridHEIF(width: 2048, height: 1536)
        turned.quarterTurns = 1
        let heic = try grid(turned, named: "turned.heic")
        let header = try withDescriptor(heic) { try ImageFile.header(descriptor: $0) }
        XCTAssertEqual([header.displayedWidth, header.displayedHeight], [1536, 2048])
        let tiled = try tile(of: heic, width: 150, height: 200)
        XCTAssertLessThan(tiled.meanDifference(from: try reference(heic, width: 150, height: 200)), 2)
    }

    /// A camera's 10-bit 4:2:2 picture in tiles (as Sony's `.hif`, which
    /// libvips 8.14 fails on), BT.601 full range: the photo it was made of.
    func testTenBitFourTwoTwoIsThePhoto() throws {
        var sony = GridHEIF(width: 2048, height: 1536)
        sony.bits = 10
        sony.chroma = "422"
        sony.colour = (1, 13, 6, true)
        let hif = try grid(sony, named: "camera.hif")
        let tiled = try tile(of: hif, width: 400, height: 300)
        let photo = try reference(samplesDirectory + "/raindrops.jpg", width: 400, height: 300, force: true)
        let difference = tiled.meanDifference(from: photo)
        print("10-bit 4:2:2: mean difference \(difference)")
        XCTAssertLessThan(difference, 3)
    }

    /// A BT.2020 picture of `transfer` (16 PQ, 18 HLG; zimg's name
    /// `zimg`) made from the photo by zimg, white at 203 cd/m²: its tile,
    /// and how far it and libvips' own decode (the samples shown as they
    /// are) are from the photo.
    private func hdrDifferences(transfer: Int, zimg: String) throws -> (mapped: Double, untouched: Double) {
        var hdr = GridHEIF(width: 2048, height: 1536)
        hdr.bits = 10
        hdr.colour = (9, transfer, 9, true)
        hdr.filters = ["format=gbrpf32le",
                       "zscale=tin=iec61966-2-1:min=gbr:pin=bt709:rin=full:t=\(zimg):m=bt2020nc:p=bt2020:r=full:npl=203"]
        let heic = try grid(hdr, named: "\(zimg).heic")
        let tiled = try tile(of: heic, width: 400, height: 300)
        let photo = try reference(samplesDirectory + "/raindrops.jpg", width: 400, height: 300, force: true)
        return (tiled.meanDifference(from: photo), try reference(heic, width: 400, height: 300).meanDifference(from: photo))
    }

    /// A PQ picture: tone-mapped, it is close to the photo; shown as its
    /// samples are (libvips' own decode) it is far off.
    func testPQPictureIsToneMappedCloseToThePhoto() throws {
        let (mapped, untouched) = try hdrDifferences(transfer: 16, zimg: "smpte2084")
        print("PQ: mean difference \(mapped) tone-mapped, \(untouched) as libvips shows it")
        XCTAssertLessThan(mapped, 8)
        XCTAssertGreaterThan(untouched, 2 * mapped)
    }

    /// An HLG picture (as phones and Canon's `.hif` write HDR stills): the
    /// same tone mapper as video frames makes it close to the photo (a
    /// little brighter: 79.7 against 74.5 mean, where zimg's HLG and
    /// BT.2408's 75% diffuse white, which ToneMap takes, differ).
    func testHLGPictureIsToneMappedCloseToThePhoto() throws {
        let (mapped, untouched) = try hdrDifferences(transfer: 18, zimg: "arib-std-b67")
        print("HLG: mean difference \(mapped) tone-mapped, \(untouched) as libvips shows it")
        XCTAssertLessThan(mapped, 8)
        XCTAssertGreaterThan(untouched, 2 * mapped)
    }
}
