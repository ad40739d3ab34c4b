import FoundationEssentials

/// `--plan` and `--from-plan`: what a plan may not be made with, what it
/// records, and a plan's configuration read back with the options given
/// beside it.
extension Configuration {
    /// `--from-plan`'s path: given.
    static func checkPlanPath(_ fromPlan: PathName) throws(ConfigurationError) {
        if fromPlan.bytes.isEmpty { throw ConfigurationError("--from-plan needs the path of a plan") }
    }

    func validatePlan() throws(ConfigurationError) {
        guard let plan else { return }
        guard fromPlan == nil else { throw ConfigurationError("--plan writes a plan and --from-plan runs one; give one of them") }
        if plan.bytes.isEmpty { throw ConfigurationError("--plan needs a path") }
        let conflicts: [(Bool, String)] = [
            (shard != nil, "--shard (plan once, then run each shard with --from-plan --shard)"),
            (dryRun, "--dry-run (a plan is already a dry run, written down)"),
            (watch, "--watch"), (skipUnchanged, "--skip-unchanged (give it to --from-plan)"),
            (inputs.contains(.standardInput), "- (a list on standard input)"),
        ]
        if let conflict = conflicts.first(where: \.0) {
            throw ConfigurationError("--plan cannot be used with \(conflict.1)")
        }
    }

    /// What a plan records: all but what changes only how a run goes (the
    /// page, `--html`, stays: the job's first shard writes it).
    var plannedPart: Configuration {
        var planned = self
        (planned.skipUnchanged, planned.shard, planned.jobs, planned.decodeMemory) = (false, nil, nil, nil)
        (planned.plan, planned.fromPlan) = (nil, nil)
        return planned
    }

    /// `--from-plan FILE`: the plan's configuration, with the options given
    /// beside it (only those that do not change the plan).
    static func planned(_ file: PathName, given: Configuration) throws(ConfigurationError) -> Configuration {
        let header: PlanLine
        switch PlanFile.check(file) {
        case .success(let checked): header = checked
        case .failure(let problem): throw ConfigurationError(problem.message, status: problem.status)
        }
        guard var planned = header.configuration else {
            throw ConfigurationError("cannot use the plan \(file): its header is damaged", status: .noInput)
        }
        let changed = given.changedKeys.filter { !runtimeKeys.contains($0) }
        if let first = changed.first {
            throw ConfigurationError("--from-plan takes its inputs and options from the plan; \(option(first)) would change it; "
                                     + "make another plan instead")
        }
        if let directory = header.directory?.path, PlanFile.workingDirectory != directory {
            throw ConfigurationError("the plan was made in \(directory), and its paths are read from there: cd \(directory) first")
        }
        planned.skipUnchanged = given.skipUnchanged
        planned.shard = given.shard
        planned.jobs = given.jobs
        planned.decodeMemory = given.decodeMemory
        planned.html = given.html ?? planned.html
        planned.fromPlan = file
        return planned
    }

    /// The properties that differ from a configuration of no inputs and no options.
    var changedKeys: [CodingKeys] {
        guard let mine = try? fields(), let blank = try? Configuration(inputs: []).fields() else { return [] }
        return CodingKeys.allCases.filter { mine[$0.stringValue] != blank[$0.stringValue] }
    }

    private func fields() throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(self))
    }
}
