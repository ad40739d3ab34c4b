import ArgumentParser
import CollageKit

/// For CI and archives: `--html`, `--flag`, `--fail-on-flag`. The page and
/// the flags themselves live in CollageKit (`HTMLIndex`, `Flagger`,
/// `FinishingJob`); this reads the options and says which combinations
/// cannot work.
struct ArchiveArguments: ParsableArguments {
    @Option(help: ArgumentHelp("At the end of the run, write a web page that shows every sheet written, each tile "
                               + "linked to its photo (an image map; links relative to the page).",
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

    /// The kinds named by `--flag`, or nil without it.
    func kinds() throws -> Set<FlagKind>? {
        guard let flag else { return nil }
        var kinds = Set<FlagKind>()
        for name in flag.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = String(name.filter { $0 != " " })
            guard let kind = FlagKind(rawValue: trimmed) else {
                let known = FlagKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--flag takes a comma-separated list of \(known); not '\(trimmed)'")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    func validate(dryRun: Bool, watch: Bool) throws {
        _ = try kinds()
        if failOnFlag && flag == nil { throw ValidationError("--fail-on-flag needs --flag LIST (blank, duplicate)") }
        if dryRun && html != nil {
            throw ValidationError("--dry-run writes nothing, so --html has no sheets to show; drop one of them")
        }
        if dryRun && flag != nil { throw ValidationError("--dry-run decodes no pixels, so --flag cannot look at them") }
        if watch && (html != nil || failOnFlag) {
            throw ValidationError("--watch never ends, so --html and --fail-on-flag, which act at the end, cannot be used with it")
        }
        if html?.isEmpty == true { throw ValidationError("--html needs a path") }
    }

    func apply(to configuration: inout CollageConfiguration) throws {
        configuration.flags = try kinds() ?? []
        configuration.failOnFlag = failOnFlag
        configuration.htmlPage = html.map { PathName($0) }
    }
}
