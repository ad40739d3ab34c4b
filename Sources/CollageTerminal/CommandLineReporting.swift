import CollageKit
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
