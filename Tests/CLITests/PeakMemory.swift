import Dispatch
import Foundation
import Glibc
import Synchronization

// MARK: - Peak memory of a child (the seeded PRNG is CollageTestSupport's)

/// How a run ended, and the most memory it held.
struct MeasuredResult {
    var result: ProcessResult
    /// Peak resident set size of the child (VmHWM sampled while it ran), in KiB.
    var maxRSSKilobytes: Int
    var maxRSSMegabytes: Double { Double(maxRSSKilobytes) / 1024 }
}

extension RunningProcess {
    /// Like `wait(timeout:)`, but reaps the child with wait4 to learn its
    /// peak memory. (The runner's own wait then only collects what is left
    /// in the pipes: the child is already gone.)
    func waitMeasured(timeout: Double) -> MeasuredResult {
        let deadline = started + timeout
        // The child's own peak: VmHWM, sampled while it runs (below, the
        // output is pumped to the end first). wait4's ru_maxrss is no good
        // here: Linux carries the spawning process's high-water mark into
        // the child at exec, so in a test process that has grown (the whole
        // suite in one xctest) every child would seem that big.
        let sampled = HighWaterSampler(pid: pid)
        pump(until: deadline)
        var raw: Int32 = 0
        var usage = rusage()
        var timedOut = false
        var ended = 0.0
        while true {
            let reaped = wait4(pid, &raw, WNOHANG, &usage)
            if reaped == pid { ended = monotonicNow(); break }
            if reaped < 0 && errno != EINTR { ended = monotonicNow(); break }
            if monotonicNow() >= deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                wait4(pid, &raw, 0, &usage)
                ended = monotonicNow()
                break
            }
            usleep(2000)
        }
        var result = wait(timeout: 0)  // the rest of the output; the pid is already reaped
        let termination = raw & 0x7f
        result.status = termination == 0 ? (raw >> 8) & 0xff : nil
        result.signal = termination != 0 && termination != 0x7f ? termination : nil
        result.timedOut = timedOut
        result.elapsed = ended - started
        let highWater = sampled.stop()
        return MeasuredResult(result: result, maxRSSKilobytes: highWater > 0 ? highWater : Int(usage.ru_maxrss))
    }
}

/// Samples a running process's VmHWM (its peak resident memory, per address
/// space, so fresh at exec) every 2 ms until stopped.
final class HighWaterSampler: Sendable {
    /// The highest VmHWM seen (kB), and whether to go on sampling.
    private let state = Mutex((peak: 0, running: true))
    private let finished = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        DispatchQueue.global().async { [self] in
            while state.withLock({ $0.running }) {
                let value = Self.highWater(pid)
                state.withLock { $0.peak = max($0.peak, value) }
                usleep(2000)
            }
            finished.signal()
        }
    }

    /// Stops sampling; the highest VmHWM seen, in kB.
    func stop() -> Int {
        state.withLock { $0.running = false }
        finished.wait()
        return state.withLock { $0.peak }
    }

    static func highWater(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
