import CollageKit
import Dispatch
import Glibc
import Logging

/// Options in, a configured run, an exit status out. No logic of its own.
enum CollageCLI {
    static func run(_ options: CollageOptions, _ resolved: Configuration.Resolved) -> ExitStatus {
        let level: Logger.Level = options.quiet ? .error : options.verbose ? .debug : .notice
        let environment = CollageProcess.environment
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler(level: level, environment: environment) }
        CollageProcess.raiseDescriptorLimit()
        let logger = Logger(label: "collage")
        let configuration = resolved.configuration
        let run = Jobs.make(resolved, logger: logger)
        let reporting = CommandLineReporting(configuration: configuration, json: options.json, quiet: options.quiet,
                                             logger: logger)
        reporting.attach(to: run)
        let signals = CollageProcess.handleSignals { status in run.interrupt(status) }
        // Runs of many images: the pages the libraries' loading touched leave
        // the resident set before the decodes start, which leaves the decode
        // budget its room under the peak (one collage is over before it matters).
        if resolved.request.makesManyCollages, let released = CollageProcess.releaseLibraryPages() {
            logger.debug("took \(released / 1024) KiB of library pages out of the resident set")
        }
        let outcome = run.run()
        withExtendedLifetime(signals) {}
        reporting.finished(outcome.status)
        return outcome.status
    }
}
