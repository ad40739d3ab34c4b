import FileFacts
import Vips

/// What a composed sheet tells of each image it placed: everything of its
/// decoded tile but the pixels and the open file. A sheet on its way to
/// its events so holds no decoded memory, while the next sheet's decodes
/// (which the window counts from the moment the run asks for that sheet)
/// may already run.
struct PlacedTile: Sendable {
    let path: PathName
    let header: ImageHeader
    /// With `--flag`: taken from the pixels where they were decoded.
    let signature: TileSignature?
    /// Why a pair's RAW or movie stands in for its still (see `DecodedTile.standIn`).
    let standIn: String?
    /// A RAW photo's "preview" or "raw"; a video's frame time, in seconds.
    let source: String?
    let frameTime: Double?
    let focus: TileFocus?
    /// A `--frames` tile: the candidates near its time not taken, and why.
    let filmPassedOver: [String]?

    init(_ tile: DecodedTile) {
        path = tile.path
        header = tile.header
        signature = tile.signature
        standIn = tile.standIn
        source = tile.source
        frameTime = tile.frameTime
        focus = tile.focus
        filmPassedOver = tile.filmPassedOver
    }
}
