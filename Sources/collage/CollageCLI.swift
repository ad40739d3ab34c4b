import CollageKit
import CollageTerminal
import Glibc
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
        let status = CommandLineReporting.run(resolved, json: options.json, quiet: options.quiet, logger: logger)
        return status
    }
}
