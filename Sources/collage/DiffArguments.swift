import ArgumentParser
import CollageKit

/// `--diff BASELINE` and its options. What they mean and which
/// combinations cannot work is CollageKit's (`Configuration`, `DiffSheets`).
struct DiffArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Compare each image of INPUT with the one at the same path below BASELINE, at full size; "
                               + "the output shows what changed, most changed first (baseline | current | difference). "
                               + "Exit status 0: nothing differs (nothing written); 1: something differs.",
                               discussion: "Example: collage --diff baseline/ screenshots/ --sheets -o 'diff-{n}.png' --junit diff.xml",
                               valueName: "BASELINE"),
            completion: .directory)
    var diff: String?

    @Option(help: ArgumentHelp("With --diff: the colour distance (0-1, YIQ) above which a pixel differs (default 0.1).",
                               valueName: "T"))
    var threshold: Double?

    @Flag(help: "With --diff: count pixels that differ only by anti-aliasing too.")
    var countAa = false

    @Option(help: ArgumentHelp("With --diff: leave a rectangle out of the comparison, in pixels (repeatable).",
                               valueName: "X,Y,W,H"))
    var ignore: [String] = []

    @Option(help: ArgumentHelp("With --diff: a pair is changed only when more than N pixels (or N% of them) differ (default 0).",
                               valueName: "N|N%"))
    var tolerance: String?

    @Option(help: ArgumentHelp("With --diff: write a JUnit XML report, one test case per pair, a failure for each whose status fails the run.",
                               valueName: "PATH"),
            completion: .file(extensions: ["xml"]))
    var junit: String?

    @Option(help: ArgumentHelp("With --diff: the statuses that make the run exit 1, among changed, resized, shifted, "
                               + "added, removed and noise (default: changed,shifted,resized,added,removed).",
                               valueName: "LIST"))
    var failOn: String?

    @Option(help: ArgumentHelp("With --diff: write each differing pair's full-size difference picture at its path below DIR.",
                               valueName: "DIR"),
            completion: .directory)
    var diffImages: String?

    @Option(help: ArgumentHelp("With --diff: write a GitHub-flavoured Markdown summary (for a pull request or "
                               + "$GITHUB_STEP_SUMMARY), its links relative to PATH.", valueName: "PATH"),
            completion: .file(extensions: ["md"]))
    var markdown: String?

    @Option(parsing: .upToNextOption,
            help: ArgumentHelp("With --diff: make the current images named (none named: every pair that fails) the "
                               + "baseline, one file at a time, atomically; nothing else is written. Put INPUT before it.",
                               valueName: "PATH"),
            completion: .file())
    var approve: [String] = []

    @Option(help: ArgumentHelp("With --diff: approve exactly the pairs a reviewer ticked on the --html page "
                               + "(its decisions.json), as --approve does; a pair whose current file changed since the "
                               + "review is refused and named (exit 65), the others approved; a file that is not "
                               + "decisions or names a path outside the trees is refused whole (exit 64).",
                               discussion: "Example: collage --diff baseline/ screenshots/ --approve-from decisions.json",
                               valueName: "FILE"),
            completion: .file(extensions: ["json"]))
    var approveFrom: String?

    @Option(help: ArgumentHelp("With --diff: options per path, one rule a line: GLOB [threshold=T] [tolerance=N|N%] "
                               + "[ignore=X,Y,W,H]... [allow=STATUS,...]; the first matching line wins.",
                               valueName: "FILE"),
            completion: .file())
    var rules: String?

    /// A bare `--approve`, as `prepared` names it.
    @Flag(name: .customLong("approve-failing"), help: .hidden)
    var approveFailing = false

    @Flag(help: "With --approve: keep the old baseline as an accepted alternative, NAME~1.png (the next free number).")
    var alternative = false

    /// The arguments as ArgumentParser reads them: a bare `--approve` (last,
    /// or before another option), which it would refuse for want of a
    /// value, becomes `--approve-failing`: approve every pair that fails.
    static func prepared(_ arguments: [String]) -> [String] {
        var prepared = arguments
        for index in prepared.indices {
            if prepared[index] == "--" { break }
            let next = index + 1 < prepared.count ? prepared[index + 1] : nil
            if prepared[index] == "--approve", next.map({ $0.hasPrefix("-") && $0 != "-" }) ?? true {
                prepared[index] = "--approve-failing"
            }
        }
        return prepared
    }
}
