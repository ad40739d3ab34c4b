import CollageKit
import Dispatch
import Glibc
import Logging
@preconcurrency import OpenCombine

/// Options in, a configured run, an exit status out. No logic of its own.
enum CollageCLI {
    static func run(_ options: CollageOptions, _ resolved: Configuration.Resolved) -> ExitStatus {
        let level: Logger.Level = options.quiet ? .error : options.verbose ? .debug : .notice
        let environment = ProcessEnvironment.variables
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler(level: level, environment: environment) }
        raiseDescriptorLimit()
        let logger = Logger(label: "collage")
        let configuration = resolved.configuration
        let run = Jobs.make(resolved, logger: logger)
        // A plan's result is its path, not the OUTPUT<TAB>IMAGE line of each image planned.
        let reporter = TextReporter(logger: logger, printPaths: !options.json && configuration.planOutput == nil)
        // Three observers of one shared event stream.
        var observers: [AnyCancellable] = []
        if options.json {
            let shard = configuration.shard
            observers.append(run.events.sink { event in
                guard JSONEvents.isPrinted(event) else { return }
                ProgressLine.shared.around { StandardStream.output.write(line: JSONEvents.line(for: event, shard: shard)) }
            })
        }
        if StandardStream.error.isTerminal && !options.quiet {
            let explicitFiles = configuration.inputs.allSatisfy { input in
                if case .path(let path) = input { return !path.isDirectory } else { return false }
            }
            let progress = ProgressReporter(total: explicitFiles ? configuration.inputs.count : nil)
            observers.append(run.events.sink { progress.handle($0) })
        }
        observers.append(run.events.sink { reporter.handle($0) })
        let signals = SignalHandlers { status in run.interrupt(status) }
        // Runs of many images: the pages the libraries' loading touched leave
        // the resident set before the decodes start, which leaves the decode
        // budget its room under the peak (one collage is over before it matters).
        if resolved.request.makesManyCollages, let released = CollageProcess.releaseLibraryPages() {
            logger.debug("took \(released / 1024) KiB of library pages out of the resident set")
        }
        let outcome = run.run()
        withExtendedLifetime((observers, signals)) {}
        if let plan = configuration.planOutput, !options.json, [.success, .someInputsFailed].contains(outcome.status) {
            StandardStream.output.write(line: plan.description)
        }
        return outcome.status
    }
}

/// A sheet keeps the file of each of its images open until it is composed
/// (the bytes checked are the bytes used), so a large --max needs as many
/// descriptors: the soft limit (often 1024) is raised to the hard one.
private func raiseDescriptorLimit() {
    var limit = rlimit()
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(resource, &limit)
}

enum ProcessEnvironment {
    static var variables: [String: String] {
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
}

/// SIGINT and SIGTERM cancel the run through its subscription; a second one
/// while the run is stopping is ignored. SIGPIPE is ignored: a closed
/// standard output must not kill a run half-way through a save.
///
/// libdispatch registers a signal source on its own thread, after
/// `resume()` returns; until then a signal is ignored. So the handlers wait
/// for both registrations before the run may start: a signal sent once the
/// run has begun (its first file created) always stops it.
final class SignalHandlers {
    private var sources: [DispatchSourceSignal] = []

    init(_ handler: @escaping (ExitStatus) -> Void) {
        signal(SIGPIPE, SIG_IGN)
        let registered = DispatchSemaphore(value: 0)
        for (number, status) in [(SIGINT, ExitStatus.interrupted), (SIGTERM, ExitStatus.terminated)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(status) }
            source.setRegistrationHandler { registered.signal() }
            source.resume()
            sources.append(source)
        }
        for _ in sources { registered.wait() }
    }
}
