import Dispatch
import Logging
@preconcurrency import OpenCombine
import Locking

/// One run over the inputs: one pass.
final class SinglePass: PassSource {
    private let pass: Locked<Pass?>

    init(_ job: CollageJob) {
        pass = Locked(Pass(job: job))
    }

    func next(report: @escaping @Sendable (PipelineEvent) -> Void) -> (pass: Pass?, othersSkipped: Int) {
        (pass.withLock { pass in defer { pass = nil }; return pass }, 0)
    }

    func stop() { pass.withLock { $0 = nil } }
}

/// `--per-folder`: the folders of each INPUT, walked lazily, depth first, in
/// byte order; each that is this shard's is one run over its own files,
/// written to `FolderOutputs.output`.
final class FolderPasses: PassSource {
    private let configuration: CollageConfiguration
    private let makeRun: @Sendable (CollageConfiguration) -> CollageJob
    private struct Walk {
        var inputs: InputsWalk
        /// The folder whose collage each output is, so that two never share one.
        var outputs: [PathName: PathName] = [:]
    }
    private let walk: Locked<Walk>
    /// Hears of each folder the walk of folders reads (for tests' counts).
    private let listed: @Sendable (PathName) -> Void

    /// Each folder is read once: its listing goes to its own run.
    init(_ configuration: CollageConfiguration, listed: @escaping @Sendable (PathName) -> Void = { _ in },
         makeRun: @escaping @Sendable (CollageConfiguration) -> CollageJob) {
        self.configuration = configuration
        self.makeRun = makeRun
        self.listed = listed
        walk = Locked(Walk(inputs: InputsWalk(configuration.inputs)))
    }

    func stop() { walk.withLock { $0.inputs.stopped = true } }

    func next(report: @escaping @Sendable (PipelineEvent) -> Void) -> (pass: Pass?, othersSkipped: Int) {
        var others = 0
        while let (listing, root) = nextFolder(report: report) {
            let folder = listing.path
            let output = FolderOutputs.output(template: configuration.output, folder: folder, root: root)
            let other = walk.withLock { $0.outputs[output] }
            if let other {
                report(.failed(path: folder, error: "its collage '\(output)' would replace the one of '\(other)'; use {path} in --output"))
                continue
            }
            // Another shard's folder takes its output all the same, so that a
            // folder of this shard that would replace it is refused here too,
            // and no file is written by two shards.
            walk.withLock { $0.outputs[output] = folder }
            if let shard = configuration.shard,
               !shard.owns(folder: FolderOutputs.relativePath(folder: folder, root: root)) {
                others += 1
                continue
            }
            return (Pass(job: makeRun(configuration.folderPass(folder, root: root, listing: listing)), folder: folder, root: root), others)
        }
        return (nil, others)
    }

    private func nextFolder(report: @escaping @Sendable (PipelineEvent) -> Void) -> (DirectoryListing, PathName)? {
        walk.withLock { walk in
            let listing = walk.inputs.next({ $0.nextFolder() }) { [configuration, listed] root in
                .walk(DirectoryWalk(root: root, followLinks: configuration.followLinks, folders: true,
                                    rules: configuration.scan, listed: listed, report: report))
            }
            return listing.map { ($0, walk.inputs.root) }
        }
    }
}

/// `--watch`: a first pass, then one on every tick of a DispatchTimer
/// publisher. Each pass after the first skips an output whose inputs and
/// options are unchanged (the `--skip-unchanged` state), so only a changed
/// folder is redone. The timer feeds a pausable sink: while a pass runs no
/// tick is taken.
final class WatchPasses: PassSource {
    private let interval: Double
    private let makePass: @Sendable (_ first: Bool) -> CollageJob
    private let timerQueue = DispatchQueue(label: "collage.watch")
    private struct State {
        var passes = 0
        var stopped = false
    }
    private let state = Locked(State())
    /// The timer's sink: `Locked`, as OpenCombine's subscribers are not Sendable.
    private let sink = Locked<(any Pausable)?>(nil)
    /// Signalled by a tick or a stop.
    private let wake = DispatchSemaphore(value: 0)

    init(interval: Double, makePass: @escaping @Sendable (_ first: Bool) -> CollageJob) {
        self.interval = interval
        self.makePass = makePass
    }

    func stop() {
        state.withLock { $0.stopped = true }
        cancelTimer()
        wake.signal()
    }

    /// Cancels the timer's sink, if it has one yet, once.
    private func cancelTimer() {
        sink.withLock { sink in defer { sink = nil }; return sink }?.cancel()
    }

    func next(report: @escaping @Sendable (PipelineEvent) -> Void) -> (pass: Pass?, othersSkipped: Int) {
        let passes = state.withLock { state in defer { state.passes += 1 }; return state.passes }
        if passes == 1 {
            report(.notice("watching for changes every \(interval) s; Ctrl-C stops"))
            startTimer()
        } else if passes > 1 {
            // On the timer's queue, after the last tick's delivery returned and
            // paused the sink (a resume before that would be lost with every
            // later tick).
            timerQueue.async { [self] in sink.withLock { $0 }?.resume() }
        }
        if passes > 0 { wake.wait() }
        guard !state.withLock({ $0.stopped }) else { return (nil, 0) }
        return (Pass(job: makePass(passes == 0), quietWhenUnchanged: passes > 0), 0)
    }

    private func startTimer() {
        let timer = Publishers.DispatchTimer(interval: .nanoseconds(Int(interval * 1e9)), queue: timerQueue)
            .pausableSink(receiveCompletion: { _ in }, receiveValue: { [wake] _ in
                wake.signal()
                return false  // no tick is taken while a pass runs
            })
        sink.withLock { $0 = timer }
        // A stop that came meanwhile found no sink to cancel.
        if state.withLock({ $0.stopped }) { cancelTimer() }
    }
}
