import CollageKit
import Dispatch
import Glibc
import Logging
@preconcurrency import OpenCombine

/// Options in, a configured run, an exit status out. No logic of its own.
enum CollageCLI {
    static func run(_ options: CollageOptions) -> ExitStatus {
        let level: Logger.Level = options.quiet ? .error : options.verbose ? .debug : .notice
        let environment = ProcessEnvironment.variables
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler(level: level, environment: environment) }
        raiseDescriptorLimit()
        let logger = Logger(label: "collage")

        var arguments = RawArguments()
        var configuration = CollageConfiguration(inputs: options.inputs.map { argument in
            argument == "-" ? .standardInput : .path(arguments.input(argument))
        })
        configuration.output = arguments.output(options.output)
        do {
            try options.apply(to: &configuration)
            try options.diffArguments.apply(to: &configuration, baseline: options.diffArguments.diff.map { arguments.input($0) })
        } catch {
            // validate() applied the same options before the run, so this is not reached.
            StandardStream.error.write(line: "collage: \(error)")
            return .usage
        }
        let run = Jobs.make(configuration, perFolder: options.perFolder,
                            watchEvery: options.watch ? options.interval : nil, logger: logger)
        let reporter = TextReporter(logger: logger, printPaths: !options.json)
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
        if options.makesManyCollages, let released = CollageProcess.releaseLibraryPages() {
            logger.debug("took \(released / 1024) KiB of library pages out of the resident set")
        }
        let outcome = run.run()
        withExtendedLifetime((observers, signals)) {}
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
/// argument it came from so that such names still work. Names that differ
/// only in such bytes read the same, so each INPUT takes the next raw
/// argument that reads as it (in order, never the --output value), and the
/// output takes the value that followed -o/--output.
struct RawArguments {
    private let raw: [[UInt8]]
    /// The bytes of each -o/--output value, and the raw indices holding one.
    private var outputs: [[UInt8]] = []
    private var outputIndices = Set<Int>()
    /// Raw indices already matched to an INPUT.
    private var taken = Set<Int>()

    init() {
        var raw: [[UInt8]] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            raw.append(Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) })
        }
        self.raw = raw
        let equalsForm = Array("--output=".utf8)
        var index = 0
        while index < raw.count, raw[index] != Array("--".utf8) {
            if raw[index] == Array("-o".utf8) || raw[index] == Array("--output".utf8), index + 1 < raw.count {
                outputs.append(raw[index + 1])
                outputIndices.insert(index + 1)
                index += 1
            } else if raw[index].starts(with: equalsForm) {
                outputs.append(Array(raw[index].dropFirst(equalsForm.count)))
                outputIndices.insert(index)
            }
            index += 1
        }
    }

    /// The bytes of the next INPUT, `argument` as ArgumentParser parsed it.
    mutating func input(_ argument: String) -> PathName {
        let utf8 = Array(argument.utf8)
        if raw.contains(utf8) { return PathName(bytes: utf8) }
        for (index, candidate) in raw.enumerated() where !taken.contains(index) && !outputIndices.contains(index) {
            if String(decoding: candidate, as: UTF8.self) == argument {
                taken.insert(index)
                return PathName(bytes: candidate)
            }
        }
        return PathName(bytes: utf8)
    }

    /// The bytes of the output path (the last -o/--output given wins).
    func output(_ argument: String) -> PathName {
        let utf8 = Array(argument.utf8)
        if outputs.contains(utf8) { return PathName(bytes: utf8) }
        if let bytes = outputs.last(where: { String(decoding: $0, as: UTF8.self) == argument }) {
            return PathName(bytes: bytes)
        }
        return PathName(bytes: utf8)
    }
}
