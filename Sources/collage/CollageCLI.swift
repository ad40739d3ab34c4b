import CollageKit
import CollageTerminal
import Dispatch
import Glibc
import Locking
import Logging

/// Options in, a run through CollageKit's public door (`Collage.start`),
/// its events told as the command line tells them, an exit status out. No
/// logic of its own.
enum CollageCLI {
    static func run(_ options: CollageOptions, _ resolved: Configuration.Resolved) -> ExitStatus {
        let level: Logger.Level = options.quiet ? .error : options.verbose ? .debug : .notice
        let environment = CollageProcess.environment
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler(level: level, environment: environment) }
        CollageProcess.raiseDescriptorLimit()
        let logger = Logger(label: "collage")
        // Runs of many images: the pages the libraries' loading touched leave
        // the resident set before the decodes start, which leaves the decode
        // budget its room under the peak (one collage is over before it matters).
        if resolved.request.makesManyCollages, let released = CollageProcess.releaseLibraryPages() {
            logger.debug("took \(released / 1024) KiB of library pages out of the resident set")
        }
        let session = Collage.start(resolved, logger: logger)
        let signals = CollageProcess.handleSignals { status in session.cancel(status) }
        // The events are told in order on a task of their own; this thread
        // waits for the last of them and the outcome.
        let (configuration, json, quiet) = (resolved.configuration, options.json, options.quiet)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<RunOutcome?>(nil)
        Task.detached {
            let reporting = CommandLineReporting(configuration: configuration, json: json, quiet: quiet, logger: logger)
            for await event in session.events { reporting.handle(event) }
            let last = await session.outcome()
            reporting.finished(last.status)
            outcome.withLock { $0 = last }
            ended.signal()
        }
        ended.wait()
        withExtendedLifetime(signals) {}
        return outcome.withLock { $0 }?.status ?? .ioError
    }
}
