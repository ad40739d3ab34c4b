import ArgumentParser
import CollageKit

/// Camera rolls: `--video`, `--frames`, `--scenes`, `--raw`, `--exclude`, `--exclude-from`, `--min-rating`. What
/// they mean, and the pattern files, are read in CollageKit (`Configuration`,
/// `ScanRules`, `ExcludePattern`).
struct CameraRollArguments: ParsableArguments {
    @Flag(help: ArgumentHelp("Consider videos too (mp4 mov m4v 3gp mkv webm avi mts m2ts), each shown by a poster "
                             + "frame; a Live Photo's movie beside its still is shown by the still."))
    var video = false

    @Option(help: ArgumentHelp("Make each video (or each video in a folder) its own sheet of N frames spread over "
                               + "it, each the best of a few near its time, captioned with its time under a header "
                               + "of the film's facts (implies --video; name the sheets with {stem}, {name} or {n} in -o).",
                               valueName: "N"))
    var frames: Int?

    @Flag(help: ArgumentHelp("With --frames N: the N most distinct shots of each film, in time order."))
    var scenes = false

    @Option(help: ArgumentHelp("Instead of --frames N: a frame of each video at each multiple of SECONDS, over as many "
                               + "sheets as needed (--max or --tile a sheet, default 25), as seek-bar thumbnails.",
                               valueName: "SECONDS"))
    var every: Double?

    @Option(help: ArgumentHelp("With --frames or --every: write WebVTT cues, one per frame, pointing at its tile "
                               + "(sheet-0001.jpg#xywh=X,Y,W,H), as players read seek-bar sprites, paths relative to PATH ({stem}, {name}: the video's name).",
                               valueName: "PATH"),
            completion: .file())
    var vtt: String?

    @Option(name: .customLong("raw"),
            help: ArgumentHelp("RAW photos (cr2 cr3 nef arw dng orf rw2 raf ...): preview (the largest embedded "
                               + "preview that fills the tile, else the raw data), full (always the raw data) or "
                               + "skip (leave them out) (default: preview). A RAW beside a JPEG or HEIC of the same "
                               + "name is shown by it.",
                               valueName: "preview|full|skip"),
            completion: .list(RawMode.allCases.map(\.rawValue)))
    var raw: String?

    @Option(name: .customLong("exclude"),
            help: ArgumentHelp("Skip what matches below an INPUT folder: * within a name, ** across folders, "
                               + "matched on the path below the INPUT (a matching folder is not entered); "
                               + "a trailing / matches folders only. Repeatable.",
                               discussion: "Example: collage --exclude '**/Screenshots/' --exclude '*/tmp-*.jpg' ~/Photos",
                               valueName: "GLOB"))
    var excludes: [String] = []

    @Option(help: ArgumentHelp("Read --exclude patterns from FILE, one a line (# starts a comment, blank lines "
                               + "are ignored).", valueName: "FILE"),
            completion: .file())
    var excludeFrom: [String] = []

    @Option(help: ArgumentHelp("Keep only photos rated N or more (-1 to 5) by their XMP, embedded or in a NAME.xmp or "
                               + "NAME.EXT.xmp sidecar beside them; unrated counts 0.", valueName: "N"))
    var minRating: Int?
}
