import ArgumentParser
import CollageKit

/// `--shard I/N` or `--shard auto`: this run does the I-th of N parts of
/// the job. Parsing and the rules live in `Shard` and `Configuration`.
struct ShardArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Do only part I of N (0 <= I < N) of a --sheets, --per-folder, --group-by or --frames job, as one task of "
                               + "an array job; N runs with 0/N to N-1/N together write what one run writes. "
                               + "auto takes I and N from Slurm (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, "
                               + "SLURM_ARRAY_TASK_COUNT), AWS Batch (AWS_BATCH_JOB_ARRAY_INDEX, AWS_BATCH_JOB_ARRAY_SIZE) "
                               + "or Cloud Run (CLOUD_RUN_TASK_INDEX, CLOUD_RUN_TASK_COUNT).",
                               discussion: "Example: collage --sheets --shard \"$JOB_COMPLETION_INDEX/8\" photos/ -o 'sheets/{n}.jpg'",
                               valueName: "I/N|auto"))
    var shard: String?
}
