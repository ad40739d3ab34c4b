import ArgumentParser
import CollageKit

/// `--sort`, `--reverse`, `--group-by`: the order images are placed in and
/// the groups they are cut into. What they mean lives in CollageKit
/// (`ImageOrder`, `GroupBy`, the group passes), as does what cannot go
/// with them.
struct TimeArguments: ParsableArguments {
    @Option(help: ArgumentHelp("The order images are placed in: name (the scan's: folders depth first, names in byte "
                               + "order; standard input's order), taken (when each photo was taken: EXIF "
                               + "DateTimeOriginal with its offset, else a date and time in the file's name, else its "
                               + "modification time) or mtime (modification time); ties keep the scan's order "
                               + "(default: name; taken with --group-by). With taken or mtime every header is read "
                               + "first and the cap takes the first images of that order.",
                               valueName: "name|taken|mtime"),
            completion: .list(ImageOrder.allCases.map(\.rawValue)))
    var sort: String?

    @Flag(help: ArgumentHelp("Turn the order round (newest first with --sort taken; with --group-by, the groups too)."))
    var reverse = false

    @Option(name: .customLong("group-by"),
            help: ArgumentHelp("One collage (or set of --sheets) per group of photos, by when they were taken: the "
                               + "calendar day, month or year of their own local time, or gap=DURATION (90m, 3h, 2d): "
                               + "a pause longer than DURATION starts a new group. {group} in --output, --label and "
                               + "--title is the group's name (2026-08-14, 2026-08, 2026; for gap, the first photo's "
                               + "2026-08-14T15.30); without {group} in --output, -GROUP is added before the extension.",
                               discussion: "Example: collage --group-by day --sheets ~/Photos/2026-08 -o 'days/{group}.jpg'",
                               valueName: "day|month|year|gap=DURATION"),
            completion: .list(["day", "month", "year", "gap=3h"]))
    var groupBy: String?

    @Flag(help: ArgumentHelp("Choose the moments: every eligible image is looked at once, small; near-duplicates (a "
                             + "burst, the same scene again) are one moment, shown by its best photo (sharp, well "
                             + "exposed, not blank, faces inside the frame, rated highest); with a cap (--max, per "
                             + "--group-by group, per --per-folder folder) that many moments spread over the time the "
                             + "photos span, in time order; with --sheets every moment once. {stack} in --label is how "
                             + "many photos a tile stands for (+7).",
                             discussion: "Example: collage --pick ~/Photos/2026-08-14 -o day.jpg"))
    var pick = false
}
