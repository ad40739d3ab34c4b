import ArgumentParser
import CollageKit

/// `--diff BASELINE` and its options. The comparison, the sheets and the
/// report live in CollageKit (`DiffRun`); this reads the options and says
/// which combinations cannot work.
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

    @Option(help: ArgumentHelp("With --diff: write a JUnit XML report, one test case per pair, a failure for each that differs.",
                               valueName: "PATH"),
            completion: .file(extensions: ["xml"]))
    var junit: String?

    func rectangles() throws -> [(x: Int, y: Int, width: Int, height: Int)] {
        try ignore.map { text in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.filter { $0 != " " }) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
                  x >= 0, y >= 0, w > 0, h > 0 else {
                throw ValidationError("--ignore takes X,Y,W,H in pixels (X and Y at least 0, W and H at least 1), not '\(text)'")
            }
            return (x, y, w, h)
        }
    }

    func validate(perFolder: Bool, watch: Bool, dryRun: Bool) throws {
        guard let diff else {
            let used = [("--threshold", threshold != nil), ("--count-aa", countAa), ("--ignore", !ignore.isEmpty),
                        ("--tolerance", tolerance != nil), ("--junit", junit != nil)].filter(\.1).map(\.0)
            if let first = used.first { throw ValidationError("\(first) is an option of --diff BASELINE") }
            return
        }
        if diff.isEmpty { throw ValidationError("--diff needs the folder of the images to compare with") }
        if let threshold, !(0...1).contains(threshold) {
            throw ValidationError("--threshold must be 0 to 1, not \(threshold)")
        }
        _ = try rectangles()
        if let tolerance, Tolerance(tolerance) == nil {
            throw ValidationError("--tolerance takes a number of pixels (12) or a percentage (0.5%), not '\(tolerance)'")
        }
        if junit?.isEmpty == true { throw ValidationError("--junit needs a path") }
        for (name, used) in [("--per-folder", perFolder), ("--watch", watch), ("--dry-run", dryRun)] where used {
            throw ValidationError("--diff and \(name) cannot be used together")
        }
    }

    func apply(to configuration: inout CollageConfiguration, baseline: PathName?) throws {
        guard let diff else { return }
        var settings = DiffSettings(baseline: baseline ?? PathName(diff))
        if let threshold { settings.threshold = threshold }
        settings.countAntiAliased = countAa
        for rect in try rectangles() { settings.ignore(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }
        if let tolerance, let value = Tolerance(tolerance) { settings.tolerance = value }
        settings.junit = junit.map { PathName($0) }
        configuration.diff = settings
    }
}
