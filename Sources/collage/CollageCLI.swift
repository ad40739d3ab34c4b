import CollageKit
import Dispatch
import Glibc
import Logging
@preconcurrency import OpenCombine

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
        let signals = CollageProcess.handleSignals { status in run.interrupt(status) }
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
