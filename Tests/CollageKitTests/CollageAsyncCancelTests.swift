import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// Stopping the async entry points: cancelling the task (or the session)
/// stops the run as SIGTERM would, leaving only complete sheets. That a
/// cancellation ended a run is shown by what it left undone (sheets not
/// written), never by how long it took.
final class CollageAsyncCancelTests: AsyncRunTestCase {
    /// What the stopped run left in `out/`: only complete sheets it reported
    /// written (no temporary or lock file), fewer than the input makes.
    /// `endsWithFinished`: the events were read to their end (not by the
    /// cancelled task, whose `for await` ends at the cancellation).
    private func checkStopped(_ outcome: RunOutcome, events: [PipelineEvent], status: ExitStatus = .terminated,
                              endsWithFinished: Bool = true,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(outcome.status, status, outcome.message ?? "", file: file, line: line)
        XCTAssertTrue(outcome.message?.contains("no partial output") == true, outcome.message ?? "", file: file, line: line)
        let written = events.compactMap { if case .written(let sheet) = $0 { sheet.output.description } else { nil } }
        XCTAssertLessThan(written.count, 8, "the cancellation ended the run before its input did", file: file, line: line)
        let left = try listing(folder("out")).map { folder.file("out/" + String(decoding: $0, as: UTF8.self)) }
        XCTAssertEqual(left.sorted(), written.sorted(), "only the sheets reported written are left", file: file, line: line)
        for path in left {
            let header = try ImageFile.header(bytes: readFile(PathName(path)))
            XCTAssertEqual(header.width, 600, path, file: file, line: line)
        }
        guard endsWithFinished else { return }
        guard case .finished(let last)? = events.last else {
            return XCTFail("the events end with finished", file: file, line: line)
        }
        XCTAssertEqual(last, outcome, file: file, line: line)
    }

    /// The task is cancelled once the run has accepted its first image:
    /// the run stops as on SIGTERM (143), leaving no partial output.
    func testCancellingTheTaskStopsTheRun() async throws {
        let configuration = try slowSheets(makeSlowInputs())
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var seen: [PipelineEvent] = []
            let outcome = await Collage.run(configuration) { events in
                for await event in events {
                    seen.append(event)
                    if case .accepted = event { startedContinuation.yield() }
                }
            }
            return (outcome, seen)
        }
        for await _ in started { break }
        task.cancel()
        let (outcome, seen) = await task.value
        // The cancelled task's `for await` ended at the cancellation; the run's outcome says it stopped.
        try checkStopped(outcome, events: seen, endsWithFinished: false)
    }

    /// Cancelling a task that awaits a session's outcome stops the session;
    /// `cancel(.interrupted)` stops it as SIGINT (130).
    func testCancellingSessions() async throws {
        let configuration = try slowSheets(makeSlowInputs())
        let session = Collage.start(configuration)
        let waiter = Task { await session.outcome() }
        var seen: [PipelineEvent] = []
        for await event in session.events {
            seen.append(event)
            if case .accepted = event, seen.count == 1 { waiter.cancel() }
        }
        let outcome = await waiter.value
        try checkStopped(outcome, events: seen)

        _ = try? FileManager.default.removeItem(atPath: folder.file("out"))
        let second = Collage.start(try slowSheets(folder("big")))
        var more: [PipelineEvent] = []
        for await event in second.events {
            more.append(event)
            if case .accepted = event, more.count == 1 { second.cancel(.interrupted) }
        }
        try checkStopped(await second.outcome(), events: more, status: .interrupted)
    }

    /// A task cancelled before the run starts: the run does nothing and
    /// ends as stopped.
    func testCancelledBeforeStarting() async throws {
        let configuration = try smallRun()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await Collage.run(configuration)
        }
        let outcome = await task.value
        XCTAssertEqual(outcome.status, .terminated, outcome.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out.jpg")))
    }

    /// An observer that throws stops the run, and its error comes out.
    func testAnObserverThatThrowsStopsTheRun() async throws {
        struct Enough: Error {}
        let configuration = try slowSheets(makeSlowInputs())
        do {
            _ = try await Collage.run(configuration) { events in
                for await event in events {
                    if case .accepted = event { throw Enough() }
                }
            }
            XCTFail("the observer's error is rethrown")
        } catch is Enough {
        }
        let left = try listing(folder("out")).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertLessThan(left.count, 8)
        XCTAssertTrue(left.allSatisfy { !$0.contains(".collage-tmp-") && !$0.hasSuffix(".collage-lock") }, "\(left)")
    }

    /// A watch ends only when cancelled: its first pass writes, the task is
    /// cancelled, and it stops as SIGTERM stops the command line's.
    func testWatchRunsUntilCancelled() async throws {
        var configuration = try smallRun()
        (configuration.watch, configuration.interval) = (true, 1)
        let task = Task {
            await Collage.run(configuration) { events in
                for await event in events {
                    if case .written = event { withUnsafeCurrentTask { $0?.cancel() } }
                }
            }
        }
        let outcome = await task.value
        XCTAssertEqual(outcome.status, .terminated, outcome.message ?? "")
        XCTAssertEqual(outcome.summary.written, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("out.jpg")))
    }
}
