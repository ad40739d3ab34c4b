import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// The async entry points (`Collage`, `CollageSession`): a run awaited
/// writes its sheet, its events arrive in order as an AsyncSequence ending
/// with `finished`, and cancelling the task stops it as SIGTERM would. That
/// a cancellation ended a run is shown by what it left undone (sheets not
/// written), never by how long it took.
final class CollageAsyncTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private let colours = LayoutPipelineTests.colours

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// Three landscape JPEGs in `in/`, and a configuration of one 300x200 collage of them.
    private func smallRun(output: String = "out.jpg") throws -> CollageConfiguration {
        try makeDirectory(folder("in"))
        for index in 0..<3 {
            try writeFlatImage(folder("in/\(index).jpg"), colours[index], width: 90, height: 60, suffix: ".jpg")
        }
        var configuration = CollageConfiguration(inputs: [.path(folder("in"))])
        configuration.canvasWidth = 300
        configuration.canvasHeight = 200
        configuration.jobs = 2
        configuration.output = folder(output)
        return configuration
    }

    private func kind(_ event: PipelineEvent) -> String {
        switch event {
        case .accepted: "accepted"
        case .rejected: "rejected"
        case .failed: "failed"
        case .paired: "paired"
        case .passedOver: "passedOver"
        case .placed: "placed"
        case .written: "written"
        case .flagged: "flagged"
        case .planned: "planned"
        case .group: "group"
        case .unchanged: "unchanged"
        case .compared: "compared"
        case .notice: "notice"
        case .document: "document"
        case .finished: "finished"
        }
    }

    // MARK: - Running

    func testAsyncRunWritesTheSheet() async throws {
        let configuration = try smallRun()
        let outcome = await Collage.run(configuration)
        XCTAssertEqual(outcome.status, .success, outcome.message ?? "")
        XCTAssertEqual(outcome.summary.written, 1)
        XCTAssertEqual(outcome.summary.used, 3)
        let header = try ImageFile.header(bytes: readFile(folder("out.jpg")))
        XCTAssertEqual(header.width, 300)
        XCTAssertEqual(header.height, 200)
    }

    /// The same events as the blocking run, in the same order, `finished`
    /// last (with the outcome `run` returns), and then the stream ends.
    func testEventsArriveInOrderEndingWithFinished() async throws {
        let configuration = try smallRun()
        var seen: [PipelineEvent] = []
        let outcome = await Collage.run(configuration) { events in
            for await event in events { seen.append(event) }
        }
        XCTAssertEqual(outcome.status, .success, outcome.message ?? "")
        guard case .finished(let last)? = seen.last else { return XCTFail("the last event is finished: \(seen.map(kind))") }
        XCTAssertEqual(last, outcome)
        XCTAssertEqual(seen.filter { kind($0) == "finished" }.count, 1)

        var blocking = configuration
        blocking.output = folder("blocking.jpg")
        let expected = runCollage(blocking)
        XCTAssertEqual(seen.map(kind), expected.events.map(kind))
        XCTAssertEqual(seen.map(kind).prefix(3), ["accepted", "accepted", "accepted"])
        let placed = seen.compactMap { if case .placed(let path, _, _, _, _, _) = $0 { path } else { nil } }
        XCTAssertEqual(placed, (0..<3).map { folder("in/\($0).jpg") })
        let written = seen.lastIndex { kind($0) == "written" }
        XCTAssertNotNil(written)
        XCTAssertGreaterThan(written ?? -1, seen.lastIndex { kind($0) == "placed" } ?? .max)
    }

    /// A session: the events end with `finished`, and by the time its
    /// outcome is known every event has arrived.
    func testSessionEventsThenOutcome() async throws {
        let session = Collage.start(try smallRun())
        var kinds: [String] = []
        for await event in session.events { kinds.append(kind(event)) }
        let outcome = await session.outcome()
        XCTAssertEqual(outcome.status, .success, outcome.message ?? "")
        XCTAssertEqual(kinds.last, "finished")
        XCTAssertEqual(kinds.filter { $0 == "written" }.count, 1)
        // Asked again, and after the end: the same outcome, no waiting.
        let again = await session.outcome()
        XCTAssertEqual(again, outcome)
        session.cancel()
        let after = await session.outcome()
        XCTAssertEqual(after.status, .success, "a job that had ended keeps its outcome")
    }

    func testMissingInputIsTheOutcomeNotAnError() async throws {
        var configuration = try smallRun()
        configuration.inputs = [.path(folder("nowhere.jpg"))]
        var kinds: [String] = []
        let outcome = await Collage.run(configuration) { events in
            for await event in events { kinds.append(kind(event)) }
        }
        XCTAssertEqual(outcome.status, .noInput)
        XCTAssertTrue(outcome.message?.contains("nowhere.jpg") == true, outcome.message ?? "")
        XCTAssertEqual(kinds, ["finished"])
    }

    /// Options that do not go together end the job before it starts, as
    /// the command line's usage errors do.
    func testOptionsThatCannotGoTogetherAreAUsageOutcome() async throws {
        let configuration = try smallRun()
        var kinds: [String] = []
        let perFolder = await Collage.run(configuration, options: CollageJobOptions(perFolder: true)) { events in
            for await event in events { kinds.append(kind(event)) }
        }
        XCTAssertEqual(perFolder.status, .usage)
        XCTAssertTrue(perFolder.message?.contains("{dir} or {path}") == true, perFolder.message ?? "")
        XCTAssertEqual(kinds, ["finished"])

        var fromInput = configuration
        fromInput.inputs = [.standardInput]
        let watch = await Collage.run(fromInput, options: CollageJobOptions(watchInterval: .seconds(1)))
        XCTAssertEqual(watch.status, .usage)
        let tooOften = await Collage.run(configuration, options: CollageJobOptions(watchInterval: .milliseconds(10)))
        XCTAssertEqual(tooOften.status, .usage)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out.jpg")))
    }

    func testPerFolderOptionRunsOnePassPerFolder() async throws {
        var configuration = try smallRun(output: "albums/{dir}.jpg")
        try makeDirectory(folder("albums"))
        try makeDirectory(folder("in/sub"))
        try writeFlatImage(folder("in/sub/a.jpg"), colours[3], width: 90, height: 60, suffix: ".jpg")
        configuration.recursive = true
        let outcome = await Collage.run(configuration, options: CollageJobOptions(perFolder: true))
        XCTAssertEqual(outcome.status, .success, outcome.message ?? "")
        XCTAssertEqual(try listing(folder("albums")).map { String(decoding: $0, as: UTF8.self) }, ["in.jpg", "sub.jpg"])
    }

    // MARK: - Cancelling

    /// `count` copies (hard links) of one large noisy JPEG in `big/`: each
    /// takes a while to decode, so a run of sheets over them lasts long
    /// enough to be stopped half-way whatever the machine.
    private func makeSlowInputs(count: Int = 32) throws -> PathName {
        let big = folder("big")
        try makeDirectory(big)
        let pixels = PixelBuffer(width: 2400, height: 1600, fill: .white)
        var seed: UInt32 = 12345
        let bytes = pixels.base.assumingMemoryBound(to: UInt8.self)
        for offset in 0..<pixels.byteCount {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            bytes[offset] = UInt8(truncatingIfNeeded: seed >> 24)
        }
        let first = folder("big/000.jpg")
        try writeFile(Encoder.encode(pixels, suffix: ".jpg[Q=95]").bytes, to: first)
        for index in 1..<count {
            let copy = folder(String(format: "big/%03d.jpg", index))
            let linked = first.withCString { from in copy.withCString { to in link(from!, to!) } }
            guard linked == 0 else { throw TestFailure("link \(copy): \(errnoText())") }
        }
        return big
    }

    private func slowSheets(_ inputs: PathName) throws -> CollageConfiguration {
        try makeDirectory(folder("out"))
        var configuration = CollageConfiguration(inputs: [.path(inputs)])
        configuration.sheets = true
        configuration.maxImages = 4
        configuration.canvasWidth = 600
        configuration.canvasHeight = 400
        configuration.jobs = 2
        configuration.output = folder("out/sheet.jpg")
        return configuration
    }

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
        let configuration = try smallRun()
        let task = Task {
            await Collage.run(configuration, options: CollageJobOptions(watchInterval: .seconds(1))) { events in
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
