extension CollageConfiguration {
    /// `--size`: the canvas, as ``CanvasSize`` parses it ("1200x800", or
    /// "1200x" for sheets as tall as their content). Setting it sets
    /// `canvasWidth`, `canvasHeight` and `naturalHeight` together, as the
    /// command line does.
    ///
    /// ```swift
    /// guard let size = CanvasSize(request.size) else { throw BadRequest("size: WIDTHxHEIGHT") }
    /// configuration.canvasSize = size
    /// ```
    public var canvasSize: CanvasSize {
        get { CanvasSize(width: canvasWidth, height: naturalHeight ? nil : canvasHeight) }
        set {
            canvasWidth = newValue.width
            canvasHeight = newValue.height ?? CanvasSize.nominalHeight(width: newValue.width)
            naturalHeight = newValue.height == nil
        }
    }
}
