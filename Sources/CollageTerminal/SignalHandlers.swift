import CollageKit
import Dispatch
import Glibc

/// What a command-line program does for its process, opt-in: the signals
/// that stop a run, the descriptor limit, the environment.
extension CollageProcess {
    /// The process's environment variables (for `--shard auto`).
    public static var environment: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// A sheet keeps the file of each of its images open until it is
    /// composed (the bytes checked are the bytes used), so a large `--max`
    /// needs as many descriptors: the soft limit (often 1024) is raised to
    /// the hard one.
    public static func raiseDescriptorLimit() {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }

    /// SIGINT and SIGTERM call `stop` (with ``ExitStatus/interrupted`` or
    /// ``ExitStatus/terminated``) instead of ending the process, for as long
    /// as the returned handlers are kept; SIGPIPE is ignored, so that a
    /// closed standard output cannot kill a run half-way through a save.
    /// Returns once both signals are being listened for.
    public static func handleSignals(_ stop: @escaping @Sendable (ExitStatus) -> Void) -> SignalHandlers {
        SignalHandlers(stop)
    }
}

/// SIGINT and SIGTERM handed to a function while kept (see
/// ``CollageProcess/handleSignals(_:)``).
///
/// libdispatch registers a signal source on its own thread, after
/// `resume()` returns; until then a signal is ignored. So the handlers wait
/// for both registrations: a signal sent once the run has begun (its first
/// file created) always stops it.
public final class SignalHandlers {
    private let sources: [any DispatchSourceSignal]

    init(_ handler: @escaping @Sendable (ExitStatus) -> Void) {
        signal(SIGPIPE, SIG_IGN)
        let registered = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for (number, status) in [(SIGINT, ExitStatus.interrupted), (SIGTERM, ExitStatus.terminated)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(status) }
            source.setRegistrationHandler { registered.signal() }
            source.resume()
            sources.append(source)
        }
        for _ in sources { registered.wait() }
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
