import Logging
import Vips

/// The entry points of CollageKit for Swift concurrency: run a configuration
/// to its end from an `async` function, watch its events as an
/// `AsyncSequence`, and stop it by cancelling the task.
///
/// ```swift
/// var configuration = Configuration(inputs: [.path(PathName("/photos/trip"))])
/// configuration.output = PathName("/tmp/trip.jpg")
/// let outcome = await Collage.run(configuration) { events in
///     for await event in events {
///         if case .written(let sheet) = event { print("wrote", sheet.output) }
///     }
/// }
/// guard outcome.status == .success else { throw MyError(outcome.message ?? "") }
/// ```
///
/// A job blocks threads while it works (libvips decodes, file writes), so
/// it runs on a thread of its own, never on Swift's cooperative pool: the
/// awaiting task is suspended, not blocked. Nothing here changes
/// process-wide settings beyond what libvips needs to start (see
/// ``prepare()``); the allocator tuning of the command line is opt-in,
/// through ``CollageProcess``.
public enum Collage {
    /// Runs `configuration` to its end and returns how it ended.
    ///
    /// Cancelling the calling task stops the run as SIGTERM stops the
    /// command line: no partial output is left, and the outcome's status is
    /// ``ExitStatus/terminated`` (unless the run had ended already).
    /// A configuration that does not validate (``Configuration/validate()``:
    /// options that cannot go together, values out of range) ends the run
    /// before it starts, with the error's status (``ExitStatus/usage``) and
    /// line as the outcome's. A watch (`watch`) ends only when the task is
    /// cancelled.
    ///
    /// - Parameters:
    ///   - configuration: What to read, what to make and where to write it.
    ///   - logger: Where the run's diagnostics go (most at `debug`).
    /// - Returns: The status (the command line's exit status), the line
    ///   that says why when it is not ``ExitStatus/success``, and the counts.
    public static func run(_ configuration: Configuration,
                           logger: Logger = Logger(label: "collage")) async -> RunOutcome {
        await CollageSession(configuration, logger: logger, observesEvents: false,
                             cancelled: Task.isCancelled).outcome()
    }

    /// Runs `configuration` to its end while `observe` reads its events.
    ///
    /// `observe` runs in the calling task and gets the run's events as they
    /// happen, in order, ending with ``PipelineEvent/finished(_:)``; the
    /// stream then finishes. It may stop reading early: the run goes on, and
    /// this returns when both have ended. If `observe` throws, the run is
    /// stopped (as by SIGTERM) and, once it has, the error is rethrown.
    /// Cancelling the calling task stops the run, as with
    /// ``run(_:logger:)``; a `for await` over the events then ends.
    ///
    /// - Parameters:
    ///   - configuration: What to read, what to make and where to write it.
    ///   - logger: Where the run's diagnostics go.
    ///   - observe: Reads the events; it need not be `Sendable`.
    /// - Returns: How the run ended.
    public static func run(_ configuration: Configuration,
                           logger: Logger = Logger(label: "collage"),
                           observing observe: (AsyncStream<PipelineEvent>) async throws -> Void) async rethrows -> RunOutcome {
        let session = CollageSession(configuration, logger: logger, observesEvents: true,
                                     cancelled: Task.isCancelled)
        return try await withTaskCancellationHandler {
            do {
                try await observe(session.events)
            } catch {
                session.cancel(.terminated)
                _ = await session.outcome()
                throw error
            }
            return await session.outcome()
        } onCancel: {
            session.cancel(.terminated)
        }
    }

    /// Starts `configuration` on a thread of its own and returns at once:
    /// the session has its events, its outcome and a way to stop it.
    ///
    /// The run is not tied to the calling task: it goes on until it ends or
    /// is cancelled through the session, whether or not anyone awaits it.
    /// Where the run belongs to one task, ``run(_:logger:observing:)``
    /// is simpler.
    ///
    /// - Parameters:
    ///   - configuration: What to read, what to make and where to write it.
    ///   - logger: Where the run's diagnostics go.
    /// - Returns: The running session.
    public static func start(_ configuration: Configuration,
                             logger: Logger = Logger(label: "collage")) -> CollageSession {
        CollageSession(configuration, logger: logger, observesEvents: true)
    }

    /// Starts a configuration resolved already (``Configuration/resolve(environment:)``:
    /// a plan read, `--exclude-from` files, `--shard auto` from the
    /// environment given) on a thread of its own, and returns at once, as
    /// ``start(_:logger:)-(Configuration,_)`` does. The command line resolves first, so that a
    /// usage error is said before anything starts, then runs through here.
    ///
    /// - Parameters:
    ///   - resolved: What to read, what to make and where to write it, resolved.
    ///   - logger: Where the run's diagnostics go.
    /// - Returns: The running session.
    public static func start(_ resolved: Configuration.Resolved,
                             logger: Logger = Logger(label: "collage")) -> CollageSession {
        CollageSession(.success(resolved), logger: logger, observesEvents: true)
    }

    /// Starts libvips for this process, at most once; later calls return
    /// the first result. The first run starts it too (and ends with
    /// ``ExitStatus/ioError`` if it cannot), so this is optional; call it
    /// first thing in `main`, before the program starts other threads, to
    /// fail early and to keep libvips' start (which sets an environment
    /// variable for a moment while it loads its modules) away from them.
    ///
    /// Starting libvips sets, for the whole process: its operation cache
    /// off, one thread per libvips pipeline (runs decode several images at
    /// once instead), only the loaders of the formats CollageKit reads
    /// allowed (chosen by content, a file cannot reach another decoder),
    /// libvips' warnings kept with the image they are about instead of
    /// printed, and a threaded HEVC decoder for HEIF photos.
    ///
    /// - Throws: A ``RunFailure`` with ``ExitStatus/ioError`` and the
    ///   reason, when libvips cannot start.
    public static func prepare() throws(RunFailure) {
        do {
            try Vips.start()
        } catch {
            throw RunFailure(status: .ioError, message: "cannot start libvips: \(error)")
        }
    }
}
