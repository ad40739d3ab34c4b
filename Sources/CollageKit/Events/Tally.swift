/// What a run counts while its events pass: the summary, and what the
/// outcome, the "left out" notice and `--skip-unchanged` need.
struct Tally: Sendable {
    var summary = Summary()
    /// Images that passed the header checks (placed or not).
    var accepted = 0
    var decodeFailures = 0
    /// Sheets that lost an image to `--require-even`.
    var droppedForEven = 0
    /// For `--skip-unchanged`: every input checked, and every output written.
    var considered: [InputRecord] = []
    var outputs: [OutputRecord] = []
    /// A shard of a `--sheets` run: eligible images whose sheets are all
    /// other shards' leave it nothing to do, which is not a failure.
    var sharded = false
    /// A run from a plan (`--from-plan`): the plan had sheets, so a shard
    /// left nothing (its sheets are others') has not failed either.
    var planned = false

    mutating func count(_ event: PipelineEvent) {
        if case .accepted = event { accepted += 1 }
        summary.count(event)
    }
}
