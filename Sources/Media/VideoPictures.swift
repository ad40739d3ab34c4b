import Vips

enum VideoPictures {
    static func header(descriptor: Int32, maxPixels: Int, maxBuffer: Int) throws -> ImageHeader {
        throw VipsError(.unsupported, "video is not decoded yet")
    }

    static func tile(descriptor: Int32, width: Int, height: Int, crop: CropMode, background: RGB,
                     header: ImageHeader, maxBuffer: Int) throws -> MediaTile {
        throw VipsError(.unsupported, "video is not decoded yet")
    }
}
