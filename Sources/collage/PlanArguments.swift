import ArgumentParser
import CollageKit
import Glibc

/// `--plan FILE` and `--from-plan FILE`: a job planned once (headers
/// only), then run from the plan by any number of shards.
struct PlanArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Read every header once and write the plan of the job to FILE (NDJSON, see docs/scale-out.md): "
                               + "what is rejected, the cut into sheets, each sheet's frames and captions, each "
                               + "image's size and modification time. Decodes and writes no collage.",
                               discussion: "Example: collage --plan job.plan --sheets photos/ -o 'sheets/{n}.jpg'",
                               valueName: "FILE"),
            completion: .file())
    var plan: String?

    @Option(help: ArgumentHelp("Run the job a --plan wrote, taking its inputs and options from FILE; with --shard I/N "
                               + "only part I, opening only the images of its own sheets. Beside it only --shard, "
                               + "--json, --skip-unchanged, --html, --jobs, --decode-memory, -v and -q may be given.",
                               discussion: "Example: collage --from-plan job.plan --shard auto",
                               valueName: "FILE"),
            completion: .file())
    var fromPlan: String?

    func validate(_ options: CollageOptions) throws {
        guard plan != nil else { return }
        guard fromPlan == nil else { throw ValidationError("--plan writes a plan and --from-plan runs one; give one of them") }
        if plan?.isEmpty == true { throw ValidationError("--plan needs a path") }
        let conflicts: [(Bool, String)] = [
            (options.shardArguments.shard != nil, "--shard (plan once, then run each shard with --from-plan --shard)"),
            (options.dryRun, "--dry-run (a plan is already a dry run, written down)"),
            (options.watch, "--watch"), (options.skipUnchanged, "--skip-unchanged (give it to --from-plan)"),
            (options.inputs.contains("-"), "- (a list on standard input)"),
        ]
        if let conflict = conflicts.first(where: \.0) {
            throw ValidationError("--plan cannot be used with \(conflict.1)")
        }
    }

    func apply(to configuration: inout CollageConfiguration) {
        configuration.planOutput = plan.map { PathName(bytes: CommandLineBytes.values(of: ["--plan"], parsed: [$0])[0]) }
        if configuration.planOutput != nil { configuration.planArguments = PlannedCommandLine.shaping }
        configuration.fromPlan = fromPlan.map {
            PathName(bytes: CommandLineBytes.values(of: ["--from-plan"], parsed: [$0])[0])
        }
    }
}

/// The command line a plan keeps, and the one a run from a plan parses:
/// the plan's own, with what was given beside `--from-plan` (only options
/// that do not change the plan) before it.
enum PlannedCommandLine {
    /// The arguments after the program's name, as given.
    static let given: [[UInt8]] = (1..<Int(CommandLine.argc)).compactMap { index in
        guard let pointer = CommandLine.unsafeArgv[index] else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
    }

    /// Options that change how a run goes, not what it makes: kept out of a
    /// plan, allowed beside `--from-plan`. With whether each takes a value.
    static let runtime: [String: Bool] = [
        "--json": false, "--skip-unchanged": false, "-v": false, "--verbose": false, "-q": false, "--quiet": false,
        "--shard": true, "--jobs": true, "--decode-memory": true, "--html": true,
    ]

    /// `given`, cut into options (one or two arguments each) up to `--`.
    /// `name` of each: the option's name, nil for an INPUT or what follows `--`.
    static func pieces(_ arguments: [[UInt8]]) -> [(name: String?, arguments: [[UInt8]])] {
        var pieces: [(name: String?, arguments: [[UInt8]])] = []
        var index = 0
        while index < arguments.count {
            let text = String(decoding: arguments[index], as: UTF8.self)
            if text == "--" { pieces.append((nil, Array(arguments[index...]))); break }
            let name = text.hasPrefix("-") && text.count > 1 ? String(text.split(separator: "=")[0]) : nil
            let takesValue = name.map { !text.contains("=") && (runtime[$0] == true || $0 == "--plan" || $0 == "--from-plan") } ?? false
            let end = min(arguments.count, index + (takesValue ? 2 : 1))
            pieces.append((name, Array(arguments[index..<end])))
            index = end
        }
        return pieces
    }

    /// With `--plan`: the arguments that shape the plan (and `--html`, the
    /// page the job's first shard writes).
    static var shaping: [[UInt8]] {
        pieces(CommandLineBytes.arguments).filter { piece in
            guard let name = piece.name else { return true }
            return (runtime[name] == nil || name == "--html") && name != "--plan"
        }.flatMap(\.arguments)
    }

    /// With `--from-plan FILE` given: the arguments to parse, or the line
    /// and status that end the run; nil without `--from-plan`.
    static let resolved: Result<[[UInt8]], PlanProblem>? = resolve()

    private static func resolve() -> Result<[[UInt8]], PlanProblem>? {
        let pieces = pieces(given)
        guard let planPiece = pieces.first(where: { $0.name == "--from-plan" }) else { return nil }
        func usage(_ message: String) -> Result<[[UInt8]], PlanProblem> {
            .failure(PlanProblem(status: .usage, message: message))
        }
        let first = planPiece.arguments[0]
        let equals = Array("--from-plan=".utf8)
        let file = first.starts(with: equals) ? Array(first.dropFirst(equals.count))
                                               : planPiece.arguments.count > 1 ? planPiece.arguments[1] : []
        guard !file.isEmpty else { return usage("--from-plan needs the path of a plan") }
        let header: PlanLine
        switch PlanFile.check(PathName(bytes: file)) {
        case .success(let checked): header = checked
        case .failure(let problem): return .failure(problem)
        }
        let planned = header.argumentBytes ?? []
        let shown = (header.arguments ?? []).joined(separator: " ")
        for piece in pieces where piece.name != "--from-plan" && (piece.name.flatMap { runtime[$0] } == nil) {
            let text = piece.arguments.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
            return usage("--from-plan takes its inputs and options from the plan; '\(text)' would change it "
                         + "(the plan was made with: \(shown)); make another plan instead")
        }
        if let directory = header.directory?.path, PlanFile.workingDirectory != directory {
            return usage("the plan was made in \(directory), and its paths are read from there: cd \(directory) first")
        }
        let beside = pieces.filter { $0.name != nil && runtime[$0.name!] != nil }.flatMap(\.arguments)
        return .success(beside + [Array("--from-plan".utf8), file] + planned)
    }
}
