import Vips

extension SheetComposer {
    /// Each caption in its band under its image and the title across the top.
    func draw(labels: [String]?, frames: [Frame], title: String?, on pixels: PixelBuffer) throws {
        // Drawn once the text renderer is wired in (see the Vips target).
    }
}
