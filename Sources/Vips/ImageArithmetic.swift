internal import CVipsShim
import FileFacts

/// Whole-image operations, each one libvips operation over every pixel
/// (vectorised by libvips, computed lazily when the result is read).
extension Image {
    private func binary(_ other: Image, _ what: String,
                        _ call: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<VipsImage>,
                                 UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32) throws -> Image {
        try apply(.operation, what) { call($0, other.pointer, $1) }
    }

    func minus(_ other: Image) throws -> Image { try binary(other, "cannot subtract", cvips_subtract) }
    func times(_ other: Image) throws -> Image { try binary(other, "cannot multiply", cvips_multiply) }

    /// 255 where the relation to `value` holds, else 0.
    func compared(_ relation: VipsOperationRelational, _ value: Double) throws -> Image {
        try apply(.operation, "cannot compare") { cvips_relational_const($0, $1, relation, value) }
    }
    func more(_ value: Double) throws -> Image { try compared(VIPS_OPERATION_RELATIONAL_MORE, value) }

    /// The pixels times a `rows` x bands matrix, as float.
    func recombined(_ matrix: [Double], rows: Int) throws -> Image {
        try apply(.operation, "cannot recombine") { input, out in
            matrix.withUnsafeBufferPointer { cvips_recomb(input, out, $0.baseAddress, Int32(rows), Int32(matrix.count / rows)) }
        }
    }

    /// a * pixel + b; cast to 8 bits when `uchar`.
    func linear(_ a: Double, _ b: Double, uchar: Bool = false) throws -> Image {
        try apply(.operation, "cannot scale") { cvips_linear1($0, $1, a, b, uchar ? 1 : 0) }
    }

    /// Placed at (x, y) in a `width` x `height` image; the rest repeats the
    /// edge (`copyEdge`) or is `background`.
    func embedded(x: Int, y: Int, width: Int, height: Int, copyEdge: Bool, background: Double = 0) throws -> Image {
        try apply(.operation, "cannot embed") {
            cvips_embed($0, $1, Int32(x), Int32(y), Int32(width), Int32(height), copyEdge ? 1 : 0, background)
        }
    }

    func cropped(x: Int, y: Int, width: Int, height: Int) throws -> Image {
        try apply(.operation, "cannot crop") { cvips_extract_area($0, $1, Int32(x), Int32(y), Int32(width), Int32(height)) }
    }

    func mean() throws -> Double {
        var value = 0.0
        guard cvips_avg(pointer, &value) == 0 else { throw VipsError.fromLibvips(.operation, "cannot measure") }
        return value
    }

    /// Where this (a mask) is non-zero, `then`, else `otherwise`.
    func choosing(_ then: Image, _ otherwise: Image) throws -> Image {
        try apply(.operation, "cannot combine") { cvips_ifthenelse($0, then.pointer, otherwise.pointer, $1) }
    }

    /// The image computed into memory, to be read many times.
    func inMemory() throws -> Image {
        guard let copied = vips_image_copy_memory(pointer) else {
            throw VipsError.fromLibvips(.operation, "cannot hold the image")
        }
        return Image(owning: copied)
    }


    /// The smallest rectangle holding every non-zero pixel of this one-band
    /// image, from its row and column sums; nil when every pixel is zero.
    func boundingBox() throws -> PixelRect? {
        var columns: UnsafeMutablePointer<VipsImage>?, rows: UnsafeMutablePointer<VipsImage>?
        guard cvips_project(pointer, &columns, &rows) == 0, let columns, let rows else {
            throw VipsError.fromLibvips(.operation, "cannot measure")
        }
        let across = try Image(owning: columns).values(), down = try Image(owning: rows).values()
        guard let left = across.firstIndex(where: { $0 != 0 }), let right = across.lastIndex(where: { $0 != 0 }),
              let top = down.firstIndex(where: { $0 != 0 }), let bottom = down.lastIndex(where: { $0 != 0 }) else {
            return nil
        }
        return PixelRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }

    /// Every sample as a Double (for small images: sums, profiles).
    func values() throws -> [Double] {
        let doubles = try apply(.operation, "cannot convert") { cvips_cast($0, $1, VIPS_FORMAT_DOUBLE) }
        var size = 0
        guard let data = vips_image_write_to_memory(doubles.pointer, &size) else {
            throw VipsError.fromLibvips(.operation, "cannot read")
        }
        defer { g_free(data) }
        return Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Double.self), count: size / 8))
    }

    /// Whether both are memory images holding the same bytes.
    func hasSamePixels(as other: Image) -> Bool { cvips_same_pixels(pointer, other.pointer) != 0 }

    /// A `width` x `height` 8-bit image of `pixel` (a value a band): the
    /// one pixel repeated to the edges, copied, never computed, per pixel.
    static func filled(width: Int, height: Int, with pixel: [UInt8]) throws -> Image {
        guard let one = cvips_image_new_from_memory_copy(pixel, pixel.count, 1, 1, Int32(pixel.count)) else {
            throw VipsError.fromLibvips(.operation, "cannot make an image")
        }
        return try Image(owning: one).embedded(x: 0, y: 0, width: width, height: height, copyEdge: true)
    }

    /// A `width` x `height` one-band 8-bit image of `value`.
    static func constant(width: Int, height: Int, value: Double) throws -> Image {
        var out: UnsafeMutablePointer<VipsImage>?
        guard cvips_constant(&out, Int32(width), Int32(height), value) == 0, let out else {
            throw VipsError.fromLibvips(.operation, "cannot make an image")
        }
        return Image(owning: out)
    }
}
