import FoundationEssentials
import XCTest
@testable import CollageKit

/// `Configuration` alone: the usage errors it finds itself, what it
/// resolves to, and its round trip through JSON (what a plan records).
final class ConfigurationTests: XCTestCase {
    private func photos() -> Configuration { Configuration(inputs: [.path(PathName("photos"))]) }

    private func assertUsage(_ configuration: Configuration, mentions words: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        do throws(ConfigurationError) {
            try configuration.validate()
            XCTFail("valid, expected a usage error mentioning \(words)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.status, .usage, file: file, line: line)
            XCTAssertTrue(error.message.contains(words), error.message, file: file, line: line)
            XCTAssertFalse(error.message.contains("\n"), "one line", file: file, line: line)
        }
    }

    func testTheDefaultsAreValidAndResolveAsTheSeedCollage() throws {
        let resolved = try photos().resolve()
        let configuration = resolved.configuration
        XCTAssertEqual(configuration.maxImages, 6)
        XCTAssertEqual(configuration.output, PathName("collage.jpg"))
        XCTAssertEqual((configuration.canvasWidth, configuration.canvasHeight).0, 1200)
        XCTAssertEqual(configuration.canvasHeight, 800)
        XCTAssertEqual(configuration.layoutName, "auto")
        XCTAssertFalse(resolved.perFolder)
        XCTAssertNil(resolved.watchEvery)
    }

    func testUsageErrorsAreFoundBeforeAnythingIsRead() {
        var configuration = Configuration(inputs: [])
        assertUsage(configuration, mentions: "INPUT")
        configuration = photos()
        configuration.max = 0
        assertUsage(configuration, mentions: "--max")
        configuration = photos()
        configuration.tile = GridShape("3x2")
        configuration.layout = "seed"
        assertUsage(configuration, mentions: "--tile")
        configuration = photos()
        configuration.perFolder = true
        assertUsage(configuration, mentions: "{dir} or {path}")
        configuration = photos()
        configuration.diff = PathName("baseline")
        configuration.requireEven = true
        assertUsage(configuration, mentions: "--require-even")
        configuration = photos()
        configuration.threshold = 0.2
        assertUsage(configuration, mentions: "--threshold is an option of --diff")
        configuration = photos()
        configuration.page = PageSize("A4")
        configuration.size = CanvasSize("800x600")
        assertUsage(configuration, mentions: "--page and --size")
        configuration = photos()
        configuration.output = PathName("sheets.pdf")
        configuration.sheets = true
        configuration.shard = "0/2"
        assertUsage(configuration, mentions: "cannot write one PDF")
        configuration = photos()
        configuration.label = "{nope}"
        assertUsage(configuration, mentions: "--label")
        configuration = photos()
        configuration.output = PathName("out.bmp")
        assertUsage(configuration, mentions: "extension")
        configuration = photos()
        configuration.shard = "1/2"
        assertUsage(configuration, mentions: "--shard cuts")
        for rating in [6, -2] {
            configuration = photos()
            configuration.minRating = rating
            assertUsage(configuration, mentions: "--min-rating must be -1 to 5, not \(rating)")
        }
        configuration = photos()
        (configuration.minRating, configuration.diff) = (3, PathName("baseline"))
        assertUsage(configuration, mentions: "--min-rating does not apply")
        configuration = photos()
        (configuration.minRating, configuration.frames) = (3, 9)
        assertUsage(configuration, mentions: "cannot be used with --min-rating")
    }

    /// `--shard auto` is read from the batch system's environment when resolved.
    func testShardAutoResolvesFromTheEnvironment() throws {
        var configuration = photos()
        configuration.sheets = true
        configuration.shard = "auto"
        try configuration.validate()
        let environment = ["SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"]
        let shard = try XCTUnwrap(try configuration.resolve(environment: environment).configuration.shard)
        XCTAssertEqual(shard.description, "2/4")
        XCTAssertThrowsError(try configuration.resolve(environment: [:]))
    }

    /// What a plan records reads back the same, typed values included,
    /// paths exact whatever their bytes.
    func testJSONRoundTrip() throws {
        var configuration = Configuration(inputs: [.path(PathName(bytes: [0x66, 0xff, 0x2e, 0x6a, 0x70, 0x67])),
                                                   .standardInput])
        configuration.output = PathName("sheets/{n}.png")
        (configuration.sheets, configuration.max, configuration.size) = (true, 12, CanvasSize("2400x"))
        (configuration.background, configuration.tile, configuration.fit) = (Colour("#202020"), GridShape("4x"), .contain)
        (configuration.crop, configuration.page, configuration.margin) = (.faces, PageSize("A4:landscape"), PrintLength("12mm"))
        configuration.exclude = [PathName("**/tmp/")]
        configuration.groupBy = "gap=3h"
        configuration.minRating = -1
        let decoded = try JSONDecoder().decode(Configuration.self, from: JSONEncoder().encode(configuration))
        XCTAssertEqual(decoded, configuration)
        XCTAssertEqual(decoded.inputs.last, .standardInput)
    }

    /// Beside `--from-plan`, only what changes how the run goes may be given.
    func testChangedKeysNameTheOptionsGiven() {
        var given = Configuration(inputs: [])
        XCTAssertEqual(given.changedKeys, [])
        (given.jobs, given.shard, given.skipUnchanged) = (1, "0/2", true)
        XCTAssertTrue(Set(given.changedKeys).isSubset(of: Configuration.runtimeKeys))
        given.max = 4
        XCTAssertEqual(given.changedKeys.filter { !Configuration.runtimeKeys.contains($0) }, [.max])
        XCTAssertEqual(Configuration.option(.max), "--max")
        XCTAssertEqual(Configuration.option(.decodeMemory), "--decode-memory")
        XCTAssertEqual(Configuration.option(.excludeFrom), "--exclude-from")
    }

    /// A plan keeps the page (`--html`) and drops what only a run decides.
    func testThePlannedPart() {
        var configuration = photos()
        (configuration.sheets, configuration.jobs, configuration.shard) = (true, 1, "0/2")
        (configuration.plan, configuration.html, configuration.skipUnchanged) = (PathName("job.plan"), PathName("i.html"), true)
        let planned = configuration.plannedPart
        XCTAssertNil(planned.plan)
        XCTAssertNil(planned.shard)
        XCTAssertNil(planned.jobs)
        XCTAssertFalse(planned.skipUnchanged)
        XCTAssertEqual(planned.html, PathName("i.html"))
        XCTAssertTrue(planned.sheets)
    }
}
