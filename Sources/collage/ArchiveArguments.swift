import ArgumentParser
import CollageKit

/// For CI and archives: `--html`, `--flag`, `--fail-on-flag`. The page and
/// the flags, and which combinations cannot work, are CollageKit's.
struct ArchiveArguments: ParsableArguments {
    @Option(help: ArgumentHelp("At the end of the run, write a web page that shows every sheet written, each tile "
                               + "linked to its photo (an image map; links relative to the page). With --diff, a review page: "
                               + "a row per differing pair, a before/after switch, its difference picture.",
                               discussion: "Example: collage --sheets photos/ -o 'site/sheet-{n}.jpg' --html site/index.html",
                               valueName: "PATH"),
            completion: .file(extensions: ["html"]))
    var html: String?

    @Option(help: ArgumentHelp("Report suspicious images (still placed): blank (one flat colour), duplicate "
                               + "(looks the same as an earlier image of the run); comma-separated.",
                               valueName: "LIST"))
    var flag: String?

    @Flag(help: "With --flag: any flagged image ends the run with status 65.")
    var failOnFlag = false
}
