import Logging
@preconcurrency import OpenCombine

/// How the command line tells a job's events: with `--json`, one line per
/// event on standard output; on a terminal (not `-q`), the progress line on
/// standard error; always, the text reports through the logger (each path
/// written on standard output without `--json`, notices and failures on
/// standard error); and a plan's path once the plan is written. An
/// embedder that wants `collage`'s own output attaches it as `collage` does.
public final class CommandLineReporting {
    private let configuration: CollageConfiguration
    private let json: Bool
    private let quiet: Bool
    private let reporter: TextReporter
    private var observers: [AnyCancellable] = []

    /// `--json` and `-q` as the command line took them.
    public init(configuration: CollageConfiguration, json: Bool, quiet: Bool, logger: Logger) {
        self.configuration = configuration
        self.json = json
        // A plan's result is its path, not the OUTPUT<TAB>IMAGE line of each image planned.
        reporter = TextReporter(logger: logger, printPaths: !json && configuration.planOutput == nil)
        self.quiet = quiet
    }

    /// Tells `job`'s events from now on, for as long as this lives.
    public func attach(to job: CollageJob) {
        if json {
            let shard = configuration.shard
            observers.append(job.events.sink { event in
                guard JSONEvents.isPrinted(event) else { return }
                ProgressLine.shared.around { StandardStream.output.write(line: JSONEvents.line(for: event, shard: shard)) }
            })
        }
        if StandardStream.error.isTerminal && !quiet {
            // Files named one by one: their count is the progress line's total.
            let explicitFiles = configuration.inputs.allSatisfy { input in
                if case .path(let path) = input { return !path.isDirectory } else { return false }
            }
            let progress = ProgressReporter(total: explicitFiles ? configuration.inputs.count : nil)
            observers.append(job.events.sink { progress.handle($0) })
        }
        let reporter = reporter
        observers.append(job.events.sink { reporter.handle($0) })
    }

    /// The job ended with `status`: a plan written says where (without `--json`).
    public func finished(_ status: ExitStatus) {
        if let plan = configuration.planOutput, !json, [.success, .someInputsFailed].contains(status) {
            StandardStream.output.write(line: plan.description)
        }
    }
}
