import ArgumentParser
import CollageKit

/// The options that say where images go on a sheet and what is written
/// under them.
struct LayoutArguments: ParsableArguments {
    @Option(help: ArgumentHelp("How a sheet's images are placed: auto (seed up to six images, grid above), seed, grid "
                               + "or justified (rows of whole images at their own aspect ratio) (default: auto).",
                               valueName: "NAME"),
            completion: .list(Layouts.names))
    var layout: String?

    @Option(help: ArgumentHelp("Columns and rows of the grid, such as 4x3; 4x fixes the columns, x3 the rows "
                               + "(implies --layout grid).", valueName: "CxR"),
            transform: { try parsed(GridShape($0), "COLUMNSxROWS, such as 4x3, 4x or x3, each 1 to 10000") })
    var tile: GridShape?

    @Option(name: .customLong("gap"),
            help: ArgumentHelp("Pixels between cells and around the edge, in the background colour (default: 0).",
                               valueName: "PX"))
    var gap: Int?

    @Option(help: ArgumentHelp("cover fills each cell and crops the overflow; contain shows the whole image, "
                               + "centred, with the background around it (default: cover; contain on a film's sheets).", valueName: "cover|contain"),
            completion: .list(Fit.allCases.map(\.rawValue)),
            transform: { try parsed(Fit(rawValue: $0), "cover or contain") })
    var fit: Fit?

    @Option(help: ArgumentHelp("Which part of an image cover keeps: centre, what libvips finds most "
                               + "interesting (attention, entropy), or the faces its XMP marks (faces; as attention "
                               + "without them) (default: centre).", valueName: "centre|attention|entropy|faces"),
            completion: .list(CropChoice.allCases.map(\.rawValue)),
            transform: { try parsed(CropChoice($0), "centre, attention, entropy or faces") })
    var crop: CropChoice?

    @Option(help: ArgumentHelp("A caption under each image, such as '{name}'. Fields: {name} {stem} {ext} {dir} {path} "
                               + "{index} {width} {height} {format} {date} {duration} (a video's, 0:42) {time} (its frame's) {group} (with --group-by) "
                               + "{rating} (its XMP stars out of 5) {label} (its XMP label) {camera} {lens} {focal} {aperture} {shutter} {iso} "
                               + "(EXIF) {stack} (with --pick: +7 for a tile standing for 8 photos); {{ and }} are braces.",
                               valueName: "TEMPLATE"))
    var label: String?

    @Option(help: ArgumentHelp("A line across the top of each sheet, such as 'Sheet {sheet}: {first} to {last}'. "
                               + "Fields: {sheet} {count} {first} {last} {date} {group} (with --group-by); with --frames, the film's "
                               + "{file} {size} {duration} {resolution} {fps} {codec} {bitrate} {audio}.", valueName: "TEMPLATE"))
    var title: String?

    @Option(help: ArgumentHelp("The font of captions and titles, such as 'DejaVu Sans 14' or 'Sans Bold'; "
                               + "without a size, the size follows the cell (default: DejaVu Sans). Characters it "
                               + "lacks are drawn with other installed fonts; -v names the font package for any "
                               + "that none has.", valueName: "DESCRIPTION"),
            transform: { text in
                do throws(FontProblem) { return try FontChoice(text) } catch { throw ValidationError(error.message) }
            })
    var font: FontChoice?
}
