import CollageKit
import Dispatch
import Locking
import Logging

/// How the command line tells a run's events: with `--json`, one line per
/// event on standard output; on a terminal (not `-q`), the progress line on
/// standard error; always, the text reports through the logger (each path
/// written on standard output without `--json`, notices and failures on
/// standard error); and a plan's path once the plan is written.
public final class CommandLineReporting {
    private let configuration: CollageConfiguration
    private let json: Bool
    private let reporter: TextReporter
    private let progress: ProgressReporter?

    /// `--json` and `-q` as the command line took them.
    public init(configuration: CollageConfiguration, json: Bool, quiet: Bool, logger: Logger) {
        self.configuration = configuration
        self.json = json
        // A plan's result is its path, not the OUTPUT<TAB>IMAGE line of each image planned.
        reporter = TextReporter(logger: logger, printPaths: !json && configuration.planOutput == nil)
        if StandardStream.error.isTerminal && !quiet {
            // Files named one by one: their count is the progress line's total.
            let explicitFiles = configuration.inputs.allSatisfy { input in
                if case .path(let path) = input { return !path.isDirectory } else { return false }
            }
            progress = ProgressReporter(total: explicitFiles ? configuration.inputs.count : nil)
        } else {
            progress = nil
        }
    }

    /// Runs `resolved` through CollageKit's public door (`Collage.start`)
    /// as the command line does, and blocks the calling thread until it has
    /// ended: its events told as they come, in order, on a task of their
    /// own (a plan's path last); SIGINT and SIGTERM cancel the session, one
    /// that arrives while it starts as soon as it has. Returns the exit status.
    public static func run(_ resolved: Configuration.Resolved, json: Bool, quiet: Bool, logger: Logger) -> ExitStatus {
        let running = Locked<(session: CollageSession?, early: ExitStatus?)>((nil, nil))
        let signals = CollageProcess.handleSignals { status in
            let session = running.withLock { state -> CollageSession? in
                if state.session == nil { state.early = status }
                return state.session
            }
            session?.cancel(status)
        }
        let session = Collage.start(resolved, logger: logger)
        if let early = running.withLock({ state -> ExitStatus? in
            state.session = session
            return state.early
        }) {
            session.cancel(early)
        }
        let configuration = resolved.configuration
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

    /// Tells one event, in the order the run sent them.
    public func handle(_ event: PipelineEvent) {
        if json, JSONEvents.isPrinted(event) {
            let line = JSONEvents.line(for: event, shard: configuration.shard)
            ProgressLine.shared.around { StandardStream.output.write(line: line) }
        }
        progress?.handle(event)
        reporter.handle(event)
    }

    /// The run ended with `status`: a plan written says where (without `--json`).
    public func finished(_ status: ExitStatus) {
        if let plan = configuration.planOutput, !json, [.success, .someInputsFailed].contains(status) {
            StandardStream.output.write(line: plan.description)
        }
    }
}
