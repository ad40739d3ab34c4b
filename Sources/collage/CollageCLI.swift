import CollageKit
import Dispatch
import Glibc
import Logging
import OpenCombine

/// Options in, a configured run, an exit status out. No logic of its own.
enum CollageCLI {
    static func run(_ options: CollageOptions) -> ExitStatus {
        let level: Logger.Level = options.quiet ? .error : options.verbose ? .debug : .notice
        let environment = ProcessEnvironment.variables
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler(level: level, environment: environment) }
        let logger = Logger(label: "collage")

        let arguments = RawArguments()
        var configuration = CollageConfiguration(inputs: options.inputs.map { argument in
            argument == "-" ? .standardInput : .path(arguments.bytes(for: argument))
        })
        configuration.output = arguments.bytes(for: options.output)
        configuration.nulSeparated = options.nulSeparated
        configuration.followLinks = options.followLinks
        configuration.allowPortrait = options.allowPortrait
        configuration.maxImages = options.maxImages
        configuration.sheets = options.sheets
        let size = OptionValues.size(options.size)!
        configuration.canvasWidth = size.width
        configuration.canvasHeight = size.height
        configuration.background = OptionValues.colour(options.background)!
        configuration.jobs = options.jobs ?? CollageConfiguration.defaultJobs
        configuration.maxPixels = options.maxPixels
        configuration.quality = options.quality
        configuration.requireEven = options.requireEven
        configuration.dryRun = options.dryRun
        configuration.skipUnchanged = options.skipUnchanged

        let makeJob: (CollageConfiguration) -> CollageJob = { configuration in
            options.perFolder ? PerFolderRun(configuration: configuration, logger: logger)
                              : CollageRun(configuration: configuration, logger: logger)
        }
        let run: CollageJob
        if options.watch {
            run = WatchRun(interval: options.interval) { first in
                var pass = configuration
                pass.recordState = true
                if !first { pass.skipUnchanged = true }
                return makeJob(pass)
            }
        } else {
            run = makeJob(configuration)
        }
        let reporter = TextReporter(logger: logger, printPaths: !options.json)
        // Three observers of one shared event stream.
        var observers: [AnyCancellable] = []
        if options.json {
            observers.append(run.events.sink { event in
                ProgressLine.shared.around { StandardStream.output.write(line: JSONEvents.line(for: event)) }
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
        let outcome = run.run()
        withExtendedLifetime((observers, signals)) {}
        return outcome.status
    }
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
final class SignalHandlers {
    private var sources: [DispatchSourceSignal] = []

    init(_ handler: @escaping (ExitStatus) -> Void) {
        signal(SIGPIPE, SIG_IGN)
        for (number, status) in [(SIGINT, ExitStatus.interrupted), (SIGTERM, ExitStatus.terminated)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(status) }
            source.resume()
            sources.append(source)
        }
    }
}

/// The command line as bytes. ArgumentParser sees Strings, in which bytes
/// that are not UTF-8 became U+FFFD; each parsed path is matched back to the
/// argument it came from so that such names still work.
struct RawArguments {
    private let raw: [[UInt8]]

    init() {
        var raw: [[UInt8]] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            raw.append(Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) })
        }
        self.raw = raw
    }

    func bytes(for argument: String) -> PathName {
        let utf8 = Array(argument.utf8)
        if raw.contains(utf8) { return PathName(bytes: utf8) }
        // `--output=PATH` forms, and arguments that were not valid UTF-8.
        for candidate in raw {
            if String(decoding: candidate, as: UTF8.self) == argument { return PathName(bytes: candidate) }
            if let equals = candidate.firstIndex(of: UInt8(ascii: "=")),
               String(decoding: candidate[(equals + 1)...], as: UTF8.self) == argument {
                return PathName(bytes: Array(candidate[(equals + 1)...]))
            }
        }
        return PathName(bytes: utf8)
    }
}
