internal import CVipsShim
internal import CVisualDiff
import Glibc
import FileFacts

/// The difference picture drawn in C from the current picture's rows, the
/// mask and the moved rows (DiffPicture.c): the same pixels as libvips'
/// pipeline (`marked`) at 1:1, in one sweep.
extension Difference {
    /// The part `region` of the difference picture at full size (outside
    /// the picture, white) shrunk to fit inside `width` x `height`, never
    /// enlarged, in memory: made in C in one pass (`vdiff_marked_shrunk`,
    /// the pixels `write(of:to:)` writes there, boxes of them averaged as
    /// `FullPicture.part(_:fitting:_:)` averages), holding a row, never the region.
    func marked(_ current: FullPicture, region: PixelRect, fitting width: Int, _ height: Int) throws -> Image {
        let size = FullPicture.fittedSize(region.width, region.height, inside: width, height)
        let moved = movedRowFlags(height: self.height, scale: 1)
        var out: UnsafeMutablePointer<VipsImage>?
        guard vdiff_marked_shrunk(current.image.pointer, Int32(self.width), Int32(self.height), boxMask?.image.pointer,
                                       Int32(box?.x ?? 0), Int32(box?.y ?? 0), moved, Int32(region.x), Int32(region.y),
                                       Int32(region.width), Int32(region.height), Int32(size.width), Int32(size.height),
                                       &out) == 0, let out else {
            throw VipsError.fromLibvips(.operation, "cannot draw the difference")
        }
        return Image(owning: out)
    }

    /// The difference picture at full size (`picture(of:width:height:)` at
    /// 1:1: the same pixels), written to `descriptor` as a PNG of a palette
    /// of 132 colours, a row at a time in one sweep over `current`'s rows
    /// (`vdiff_png_write`, deflated as the rows come): a tall page is never
    /// held whole, and a byte a pixel is compressed, not three.
    public func write(of current: FullPicture, to descriptor: Int32) throws {
        let moved = movedRowFlags(height: height, scale: 1), box = box ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
        try Self.written(vdiff_png_write(current.image.pointer, Int32(width), Int32(height), boxMask?.image.pointer,
                                              Int32(box.x), Int32(box.y), moved, descriptor))
    }

    /// A `width` x `height` picture all marked red (an added or removed
    /// pair's difference), written as `write` writes.
    public static func writeAllMarked(width: Int, height: Int, to descriptor: Int32) throws {
        try written(vdiff_png_write(nil, Int32(width), Int32(height), nil, 0, 0, nil, descriptor))
    }

    private static func written(_ status: Int32) throws {
        if status > 0 {
            throw VipsError(.operation, "cannot write the difference picture: " + String(cString: strerror(status)))
        }
        guard status == 0 else { throw VipsError.fromLibvips(.operation, "cannot write the difference picture") }
    }

    /// 255 on the rows (of `height`, at `scale`) where a moved band is now,
    /// 0 elsewhere; nil when none moved.
    func movedRowFlags(height: Int, scale: Double) -> [UInt8]? {
        guard !shifts.isEmpty else { return nil }
        var rows = [UInt8](repeating: 0, count: height)
        for shift in shifts {
            let top = Int((Double(shift.y + shift.dy) * scale).rounded(.down))
            let bottom = Int((Double(shift.y + shift.dy + shift.height) * scale).rounded(.up))
            for row in max(0, top)..<min(height, max(top, bottom)) { rows[row] = 255 }
        }
        return rows
    }
}
