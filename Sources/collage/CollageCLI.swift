import CollageKit
import Dispatch
import Glibc
import Logging
import OpenCombine

/// Options in, a configured run, an exit status out. No logic of its own.
enum CollageCLI {
    static func run(_ options: CollageOptions) -> ExitStatus {
        let level: Logger.Level = options.quiet ? .error : options.verbose ? .debug : .notice
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler(level: level) }
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

        let run = CollageRun(configuration: configuration, logger: logger)
        let reporter = TextReporter(logger: logger, printPaths: !options.json)
        let json = options.json
        let observer = run.events.sink { event in
            if json { StandardStream.output.write(line: JSONEvents.line(for: event)) }
            reporter.handle(event)
        }
        let signals = SignalHandlers { status in run.interrupt(status) }
        let outcome = run.run()
        withExtendedLifetime((observer, signals)) {}
        return outcome.status
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
