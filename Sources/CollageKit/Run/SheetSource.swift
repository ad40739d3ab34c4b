import Dispatch
@preconcurrency import OpenCombine

/// Where a run's sheets come from: the one thing that differs between the
/// kinds of run. Below the point where a run's sheets are known, every kind
/// is the same pipeline: one shell (`CollageRun`) driving one pure machine
/// (`RunMachine`), a pausable sink asking for one sheet at a time, the same
/// composer, saver, events, state and outcome. A source says how its sheets
/// are found:
///
/// - `WalkedSheets`: the inputs walked (or their headers sorted, a group's
///   images, a plan's sheets, a shard's share), selected, decoded, cut;
/// - `DiffSheets`: the pairs of a baseline and the inputs, compared, the
///   differing ones cut into sheets of cells.
///
/// A new kind of run is a new source here, its name among
/// `ResolvedRun.Kind`, and one case of `Jobs.make` that wires it.
protocol SheetSource: Sendable {
    /// What this kind of run checks before any image is read, after the
    /// contract's own checks (`Preflight`): why it cannot start, if so.
    func check() -> RunFailure?

    /// The configuration whose inputs `--skip-unchanged` compares and keeps
    /// in the state beside the output.
    func stateConfiguration(_ configuration: CollageConfiguration) -> CollageConfiguration

    /// The run's sheets, each asked for by the shell's pausable sink and
    /// delivered on `context.queue`.
    func sheets(_ context: SheetContext) -> AnyPublisher<CutSheet, Never>

    /// One collage at the cap: the line that tells how much was left out.
    func leftOutNotice(_ tally: Tally) -> String?

    /// At the end of a run that neither failed nor was stopped: what this
    /// kind of run writes besides its sheets (`--junit`). `skipped`: the
    /// sheets were found unchanged and nothing was compared.
    func finish(skipped: Bool) -> RunFailure?

    /// How the outcome reads this kind of run: `skipped` as for `finish`.
    func adjust(_ facts: inout OutcomeFacts, skipped: Bool)

    /// The outcome the state beside the output records.
    func recorded(_ outcome: RunOutcome) -> RunOutcome

    /// What the run's decode budget asks the allocator beside a heavy
    /// decode (`DecodeBudget`).
    var allocator: AllocatorPolicy { get }

    /// The run has ended: what the source held for it is let go.
    func close()
}

extension SheetSource {
    func check() -> RunFailure? { nil }
    func stateConfiguration(_ configuration: CollageConfiguration) -> CollageConfiguration { configuration }
    func finish(skipped: Bool) -> RunFailure? { nil }
    func adjust(_ facts: inout OutcomeFacts, skipped: Bool) {}
    func recorded(_ outcome: RunOutcome) -> RunOutcome { outcome }
    var allocator: AllocatorPolicy { .tightenBesideHeavy }
    func close() {}
}

/// What the shell lends its source: the run's configuration and queues,
/// its decode budget, and where what happens is told.
struct SheetContext: Sendable {
    let configuration: CollageConfiguration
    let instrumentation: RunInstrumentation
    /// What the run's decodes may hold at once.
    let budget: DecodeBudget
    /// Decoding and comparing run here, at most `jobs` at once.
    let workers: DispatchQueue
    /// The shell's queue: sheets are delivered here.
    let queue: DispatchQueue
    /// Whether a signal asked the run to stop.
    let stop: @Sendable () -> Bool
    let report: @Sendable (PipelineEvent) -> Void
    /// For `--skip-unchanged`: inputs checked, in order.
    let consider: @Sendable ([RunState.Considered]) -> Void
    /// An image that passed its header checks failed to decode.
    let decodeFailed: @Sendable (DecodeFailure) -> Void
    /// With `--shard` and `--skip-unchanged`: what an earlier run of this shard wrote.
    let previous: RunState?
}
