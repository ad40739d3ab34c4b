internal import CVipsShim
import FileFacts

extension FullPicture {
    /// The part `region` of the picture (outside it, white) held in memory:
    /// at 1:1, or shrunk as `fitted(region:width:height:)` shrinks it when
    /// larger than `width` x `height`. Fitting the copy into the same box
    /// gives `fitted(region:width:height:)`'s pixels.
    public func kept(region: PixelRect, width: Int, height: Int) throws -> FullPicture {
        try Self.kept(image.embedded(x: -region.x, y: -region.y, width: region.width, height: region.height,
                                     copyEdge: false, background: 255), width: width, height: height)
    }

    /// The whole picture held as `kept(region:width:height:)` holds a part.
    public func kept(width: Int, height: Int) throws -> FullPicture {
        try Self.kept(image, width: width, height: height)
    }

    /// `image` shrunk as `fitted` shrinks it (not cropped), in memory.
    static func kept(_ image: Image, width: Int, height: Int) throws -> FullPicture {
        let scale = min(1, Double(width) / Double(image.width), Double(height) / Double(image.height))
        var shrunk = scale >= 1 ? image : try image.apply(.operation, "cannot resize") {
            cvips_shrink($0, $1, 1 / scale, 1 / scale)
        }
        if shrunk.width > width || shrunk.height > height {  // a rounding pixel, as `fitted` cuts it
            shrunk = try shrunk.cropped(x: 0, y: 0, width: min(width, shrunk.width), height: min(height, shrunk.height))
        }
        guard let copied = vips_image_copy_memory(shrunk.pointer) else {
            throw VipsError.fromLibvips(.operation, "cannot hold the picture")
        }
        return FullPicture(Image(owning: copied))
    }
}

/// The current picture as the difference picture's page, shrunk once and
/// held (`Difference.page(of:width:height:)`), and the scale it was shrunk to.
public struct KeptPage: Sendable {
    /// The page, the size of the difference picture shrunk to `scale`.
    public let picture: FullPicture
    /// What it was shrunk by (at most 1).
    public let scale: Double
}

extension Difference {
    /// The part `region` of the difference picture (`picture(of:region:)`)
    /// held as `FullPicture.kept(region:width:height:)` holds a part.
    public func kept(of current: FullPicture, region: PixelRect, width: Int, height: Int) throws -> FullPicture {
        try FullPicture.kept(marked(current, scale: 1).embedded(x: -region.x, y: -region.y, width: region.width,
                                                                height: region.height, copyEdge: false, background: 255),
                             width: width, height: height)
    }

    /// `current` shrunk to the size the difference picture fitted inside
    /// `width` x `height` has, held: what `picture(of:width:height:)` marks.
    public func page(of current: FullPicture, width: Int, height: Int) throws -> KeptPage {
        let scale = min(1, Double(width) / Double(self.width), Double(height) / Double(self.height))
        let page = try current.image.embedded(x: 0, y: 0, width: self.width, height: self.height, copyEdge: false,
                                              background: 255)
        let shrunk = scale >= 1 ? page : try page.apply(.operation, "cannot resize") {
            cvips_shrink($0, $1, 1 / scale, 1 / scale)
        }
        guard let copied = vips_image_copy_memory(shrunk.pointer) else {
            throw VipsError.fromLibvips(.operation, "cannot hold the page")
        }
        return KeptPage(picture: FullPicture(Image(owning: copied)), scale: scale)
    }

    /// The difference picture fitted inside `width` x `height` as
    /// `picture(of:width:height:)` makes it, from a kept page: the same
    /// pixels when the page was kept for that box; shrunk from the kept
    /// copy (never enlarged) when the box is smaller.
    public func picture(of page: KeptPage, width: Int, height: Int) throws -> PixelBuffer {
        let scale = min(page.scale, Double(width) / Double(self.width), Double(height) / Double(self.height))
        return try FullPicture.fitted(marked(page.picture, scale: scale, kept: page.scale), width: width, height: height)
    }
}
