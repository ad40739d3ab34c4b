import ArgumentParser
import CollageKit

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
}
