internal import CHEVC
internal import CVipsShim
import FileFacts
import Glibc
import ToneMap

/// HEIF pictures decoded tile by tile (`chevc_decode_tiles`): a grid of
/// HEVC tiles (a phone's 12 to 200 MP photo, a camera's `.hif`) or of AV1
/// tiles (an AVIF grid: each tile through dav1d, libheif's own AV1
/// decoder, for libheif 1.15 has no call that decodes one tile), or one
/// HEVC picture deeper than 8 bits or of HDR colour, as a grid of one.
///
/// libheif 1.15 decodes a grid whole: every tile pasted into a full-size
/// RGB picture (3 bytes a pixel, 6 deeper: 145 MB for 48 MP, 600 for 200),
/// and its API gives no handle on a grid's tiles. So the grid's tables are
/// read here (`HEIFLayout`, from the structure check), and each tile goes
/// through a libde265 decoder of its own and is box-shrunk as it comes
/// (a box straddling two rows of tiles finished with the next row): what
/// is held is one tile's picture, the sums of one row of tiles' small
/// rows, and the small 4:4:4 planes. libheif's steps are then done on the
/// small picture, as it does them on the whole: YCbCr to R'G'B' with the
/// tiles' colour box (else the stream's), the grid's irot, imir and clap
/// in the file's order, its ICC profile attached. HDR (PQ, HLG) and wide
/// primaries without a profile go through the tone mapper (`ToneMap`),
/// as video frames do. An alpha plane of the same grid is decoded tile by
/// tile beside the picture, each alpha tile after its colour tile, and
/// shrunk over the same boxes: the small picture is then RGBA.
extension ImageFile {
    /// The picture of `layout` in the file open on `descriptor`, upright
    /// and cropped as libheif shows it, scaled to cover `coverWidth` x
    /// `coverHeight` (libvips' resize of the small picture), 8-bit sRGB
    /// (or 8-bit with its ICC profile attached). Throws a load error for a
    /// tile that does not decode.
    static func tiledHEIF(descriptor: Int32, layout: HEIFLayout, coverWidth: Int, coverHeight: Int) throws -> Image {
        let factor = tiledFactor(layout, coverWidth: coverWidth, coverHeight: coverHeight)
        let sink = try BandSink(layout, width: layout.width / factor, height: layout.height / factor)
        var error = [CChar](repeating: 0, count: 256)
        let extents = layout.tiles.map { chevc_extent(offset: Int64($0.offset), length: Int64($0.length)) }
        let alphaExtents = layout.alpha?.tiles.map { chevc_extent(offset: Int64($0.offset), length: Int64($0.length)) } ?? []
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var smallWidth: Int32 = 0, smallHeight: Int32 = 0
        let status = extents.withUnsafeBufferPointer { tiles in
            layout.configuration.withUnsafeBufferPointer { configuration in
                alphaExtents.withUnsafeBufferPointer { alphaTiles in
                    (layout.alpha?.configuration ?? []).withUnsafeBufferPointer { alphaConfiguration in
                        var tiling = chevc_tiling(width: Int32(layout.width), height: Int32(layout.height),
                                                  columns: Int32(layout.columns), rows: Int32(layout.rows),
                                                  tile_width: Int32(layout.tileWidth), tile_height: Int32(layout.tileHeight),
                                                  tiles: tiles.baseAddress, configuration: configuration.baseAddress,
                                                  configuration_size: configuration.count, factor: Int32(factor),
                                                  bits: Int32(layout.bits), threads: Int32(min(max(cores, 1), 8)),
                                                  alpha_tiles: layout.alpha == nil ? nil : alphaTiles.baseAddress,
                                                  alpha_configuration: alphaConfiguration.baseAddress,
                                                  alpha_configuration_size: alphaConfiguration.count,
                                                  alpha_bits: Int32(layout.alpha?.bits ?? 0),
                                                  codec: Int32(layout.codec.rawValue))
                        return chevc_decode_tiles(descriptor, &tiling, { context, band in
                            guard let context, let band else { return -1 }
                            return Unmanaged<BandSink>.fromOpaque(context).takeUnretainedValue().take(band.pointee) ? 0 : -1
                        }, Unmanaged.passUnretained(sink).toOpaque(), &smallWidth, &smallHeight, &error, error.count)
                    }
                }
            }
        }
        guard status == 0, Int(smallWidth) == sink.width, Int(smallHeight) == sink.height else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VipsError(.load, "cannot decode heif: \(status == 0 ? "a picture of another size" : message)")
        }
        let image = try sink.icc.withUnsafeBufferPointer { profile in
            guard let raw = cvips_image_new_from_owned_rgb(sink.handOver(), sink.width * sink.height * sink.bands, smallWidth,
                                                           smallHeight, profile.isEmpty ? nil : profile.baseAddress,
                                                           profile.count) else {
                throw VipsError.fromLibvips(.load, "cannot decode heif")
            }
            return Image(owning: raw)
        }
        let (shown, shownWidth, shownHeight) = try transformed(image, layout, factor: factor)
        let scale = max(Double(coverWidth) / Double(shownWidth), Double(coverHeight) / Double(shownHeight))
        return try shown.apply(.load, "cannot resize") { cvips_resize($0, $1, scale * Double(factor)) }
    }

    /// How many HEIF pictures have been decoded tile by tile in this process.
    public static var heifTiledDecodes: UInt { chevc_tiled_decoded() }

    /// The box factor: half the scale-down to cover (libvips' resize does
    /// the rest, with its Lanczos filter), at most 128; where that is
    /// below 2, the whole scale-down (as libvips' JPEG shrink-on-load
    /// leaves as little as 1x to its resize), at least 1.
    static func tiledFactor(_ layout: HEIFLayout, coverWidth: Int, coverHeight: Int) -> Int {
        let quarter = layout.transforms.filter { if case .rotate(let q) = $0 { q % 2 == 1 } else { false } }.count % 2 == 1
        let (w, h) = quarter ? (layout.height, layout.width) : (layout.width, layout.height)
        guard coverWidth > 0, coverHeight > 0 else { return 1 }
        let down = min(Double(w) / Double(coverWidth), Double(h) / Double(coverHeight))
        return down >= 4 ? min(128, Int(down / 2)) : max(1, Int(down))
    }

    /// What decoding `layout` to cover a `coverWidth` x `coverHeight` tile
    /// holds at its peak (besides libvips' working set): the small 8-bit
    /// RGB picture, a band of 16-bit R'G'B', the sums of the small rows one
    /// row of tiles reaches (three 16-bit sums a pixel, finished in place;
    /// or 32-bit sums, the rows finished apart), one
    /// tile's picture in libde265 (its planes and what it keeps for every
    /// block: 3 bytes a pixel, 4 deeper) and its coded data. With an
    /// alpha plane, a fourth sample a pixel in each (its tiles are decoded
    /// after their colour tiles, one picture at a time).
    static func tiledDecodeBytes(_ layout: HEIFLayout, coverWidth: Int, coverHeight: Int) -> Int {
        let factor = tiledFactor(layout, coverWidth: coverWidth, coverHeight: coverHeight)
        let smallWidth = layout.width / factor, smallHeight = layout.height / factor
        let window = layout.tileHeight / factor + 2
        let planes = layout.alpha == nil ? 3 : 4
        let small = smallWidth * smallHeight * planes + smallWidth * BandSink.bandRows * 6
        let narrow = factor * factor << max(8, layout.bits, layout.alpha?.bits ?? 8) <= 65536
        let rows = smallWidth * window * planes * (narrow ? 2 : 4 + 2)
        let tile = layout.tileWidth * layout.tileHeight * (max(layout.bits, layout.alpha?.bits ?? 8) > 8 ? 4 : 3)
        let coded = (layout.tiles + (layout.alpha?.tiles ?? [])).map(\.length).max() ?? 0
        return small + rows + tile + coded
    }

    /// The grid's irot, imir and clap on the small picture, in the file's
    /// order, as libheif applies them to the whole one; and the size the
    /// whole picture is shown at after them.
    private static func transformed(_ image: Image, _ layout: HEIFLayout, factor: Int) throws -> (Image, Int, Int) {
        var image = image, width = layout.width, height = layout.height
        for transform in layout.transforms {
            switch transform {
            case .rotate(let quarters) where quarters % 4 != 0:
                // irot turns anticlockwise; vips_rot clockwise.
                image = try image.apply(.load, "cannot turn") { cvips_rot_quarters($0, $1, Int32(4 - quarters % 4)) }
                if quarters % 2 == 1 { swap(&width, &height) }
            case .mirror(let axis):
                image = try image.apply(.load, "cannot mirror") { cvips_flip($0, $1, axis == 1 ? 1 : 0) }
            case .crop(let cropWidth, let cropHeight, let horizontal, let vertical):
                // libheif's rounding of the clean aperture (Box_clap), on the whole picture.
                let left = max(0, Int((horizontal + Double(width - 1) / 2 - (cropWidth - 1) / 2).rounded(.down)))
                let top = max(0, Int((vertical + Double(height - 1) / 2 - (cropHeight - 1) / 2).rounded()))
                let right = min(width - 1, Int((cropWidth - 1 + Double(left)).rounded()))
                let bottom = min(height - 1, Int((cropHeight - 1 + Double(top)).rounded()))
                guard left <= right, top <= bottom else { throw VipsError(.load, "corrupt heif: an invalid clean aperture") }
                let x = min(image.width - 1, left / factor), y = min(image.height - 1, top / factor)
                let w = max(1, min(image.width - x, (right - left + 1) / factor))
                let h = max(1, min(image.height - y, (bottom - top + 1) / factor))
                image = try image.cropped(x: x, y: y, width: w, height: h)
                (width, height) = (right - left + 1, bottom - top + 1)
            default: break
            }
        }
        return (image, width, height)
    }
}
