import ArgumentParser
import CollageKit

/// `--shard I/N` or `--shard auto`: this run does the I-th of N parts of
/// the job. Parsing and the rules live in `Shard`; this only reads the
/// option and the environment.
struct ShardArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Do only part I of N (0 <= I < N) of a --sheets, --per-folder or --group-by job, as one task of "
                               + "an array job; N runs with 0/N to N-1/N together write what one run writes. "
                               + "auto takes I and N from Slurm (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, "
                               + "SLURM_ARRAY_TASK_COUNT), AWS Batch (AWS_BATCH_JOB_ARRAY_INDEX, AWS_BATCH_JOB_ARRAY_SIZE) "
                               + "or Cloud Run (CLOUD_RUN_TASK_INDEX, CLOUD_RUN_TASK_COUNT).",
                               discussion: "Example: collage --sheets --shard \"$JOB_COMPLETION_INDEX/8\" photos/ -o 'sheets/{n}.jpg'",
                               valueName: "I/N|auto"))
    var shard: String?

    /// The shard, or nil without `--shard`; a usage error's line when the
    /// value cannot be used or the run is not one that can be cut.
    func resolve(sheets: Bool, perFolder: Bool, grouped: Bool) throws -> Shard? {
        guard let shard else { return nil }
        guard sheets || perFolder || grouped else {
            throw ValidationError("--shard cuts a --sheets, --per-folder or --group-by job into parts; add one of them")
        }
        switch Shard.parse(shard, environment: ProcessEnvironment.variables) {
        case .success(let value): return value
        case .failure(let error): throw ValidationError(error.description)
        }
    }
}
