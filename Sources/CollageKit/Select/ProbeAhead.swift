import Dispatch
import Locking

/// An input with its header already read (or why it could not be).
struct CheckedInput: Sendable {
    let input: InputFile
    let result: Result<AcceptedImage, ProbeFailure>
}

/// One input's header, read on a worker and waited for by `ProbeAhead`.
/// Outside the generic `ProbeAhead`, so that the work sent to the workers
/// captures nothing of its source's type.
private final class ProbeSlot: Sendable {
    let input: InputFile
    let done = DispatchSemaphore(value: 0)
    let result = Locked<Result<AcceptedImage, ProbeFailure>?>(nil)
    init(_ input: InputFile) { self.input = input }
}

/// `--plan`'s header pass: the headers of the next `depth` inputs are read
/// at once on `workers` (on network storage every open is a round trip,
/// and many in flight hide them), and handed on in scan order, so the
/// verdicts, the cut and the plan are those of one header at a time. At
/// most `depth` files are open ahead of the run.
///
/// Not Sendable (see `PullSource`): only `next()`'s caller touches the
/// source and the slots; the workers are handed a slot each, which is
/// Sendable.
final class ProbeAhead<Source: PullSource>: PullSource where Source.Element == InputFile {
    private var source: Source
    private let probe: Probe
    private let depth: Int
    private let workers: DispatchQueue
    private var slots: [ProbeSlot] = []
    private var first = 0

    init(_ source: Source, probe: Probe, depth: Int, workers: DispatchQueue) {
        (self.source, self.probe, self.depth, self.workers) = (source, probe, max(1, depth), workers)
    }

    func next() -> CheckedInput? {
        while slots.count - first < depth, let input = source.next() {
            let slot = ProbeSlot(input)
            let probe = probe
            workers.async {
                let result = probe.check(input.path, sidecars: input.sidecars)
                slot.result.withLock { $0 = result }
                slot.done.signal()
            }
            slots.append(slot)
        }
        guard first < slots.count else { return nil }
        let slot = slots[first]
        first += 1
        if first > 1024 { slots.removeFirst(first); first = 0 }
        slot.done.wait()
        // Taken out of the slot: the consumed slots kept until the next
        // compaction hold no open file.
        return CheckedInput(input: slot.input, result: slot.result.withLock { result in
            defer { result = nil }
            return result!
        })
    }
}
