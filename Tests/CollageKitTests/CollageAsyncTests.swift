import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// The async entry points (`Collage`, `CollageSession`): a run awaited
/// writes its sheet, its events arrive in order as an AsyncSequence ending
/// with `finished`, and options that cannot go together are a usage outcome.
final class CollageAsyncTests: AsyncRunTestCase {
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
        let expected = runCollage(try blocking.resolve().configuration)
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
        var perFolderRun = configuration
        perFolderRun.perFolder = true
        let perFolder = await Collage.run(perFolderRun) { events in
            for await event in events { kinds.append(kind(event)) }
        }
        XCTAssertEqual(perFolder.status, .usage)
        XCTAssertTrue(perFolder.message?.contains("{dir} or {path}") == true, perFolder.message ?? "")
        XCTAssertEqual(kinds, ["finished"])

        var fromInput = configuration
        (fromInput.inputs, fromInput.watch, fromInput.interval) = ([.standardInput], true, 1)
        let watch = await Collage.run(fromInput)
        XCTAssertEqual(watch.status, .usage)
        var tooOftenRun = configuration
        (tooOftenRun.watch, tooOftenRun.interval) = (true, 0.01)
        let tooOften = await Collage.run(tooOftenRun)
        XCTAssertEqual(tooOften.status, .usage)
        XCTAssertTrue(tooOften.message?.contains("--interval") == true, tooOften.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out.jpg")))
    }

    func testPerFolderOptionRunsOnePassPerFolder() async throws {
        var configuration = try smallRun(output: "albums/{dir}.jpg")
        try makeDirectory(folder("albums"))
        try makeDirectory(folder("in/sub"))
        try writeFlatImage(folder("in/sub/a.jpg"), colours[3], width: 90, height: 60, suffix: ".jpg")
        configuration.perFolder = true
        let outcome = await Collage.run(configuration)
        XCTAssertEqual(outcome.status, .success, outcome.message ?? "")
        XCTAssertEqual(try listing(folder("albums")).map { String(decoding: $0, as: UTF8.self) }, ["in.jpg", "sub.jpg"])
    }
}
