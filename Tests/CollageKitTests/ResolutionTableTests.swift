import XCTest
@testable import CollageKit

/// The resolution as a table: each row a configuration asked, by kind of
/// run (collage, sheets, folders, groups, pick, diff, film, plan, a run
/// from a plan, watch), and what it resolves to, defaults included: the
/// values every run of the job starts from (`Configuration.Resolved.run`).
/// A row names only what differs from the seed collage's row.
final class ResolutionTableTests: XCTestCase {
    /// What one configuration resolves to, as the table compares it.
    struct Values: Equatable, CustomStringConvertible {
        var kind = ResolvedRun.Kind.collage
        var passes = ResolvedRun.Passes.single
        var cap = 6, sheets = false
        var canvas = "1200x800", naturalHeight = false
        var layout = "auto", fit = Fit.cover, aimsBelowCaptions = false
        var label: String?, title: String?
        var allowPortrait = false, dryRun = false, readAhead = 0
        var html: String?, page: String?
        var shard: String?
        var film: String?
        var video = false, sort = ImageOrder.name, pickCap: Int?
        var jobs = CollageConfiguration.defaultJobs, decodeMiB = 116
        var watch: Double?

        var description: String {
            "\(kind) \(passes) cap \(cap) sheets \(sheets) \(canvas)\(naturalHeight ? " natural" : "") \(layout) \(fit)"
                + "\(aimsBelowCaptions ? " aims" : "") label \(label ?? "-") title \(title ?? "-") portrait \(allowPortrait)"
                + " dry \(dryRun) ahead \(readAhead) html \(html ?? "-") page \(page ?? "-") shard \(shard ?? "-")"
                + " film \(film ?? "-") video \(video) \(sort) pick \(pickCap.map(String.init) ?? "-") jobs \(jobs)"
                + " \(decodeMiB) MiB watch \(watch.map { "\($0)" } ?? "-")"
        }

        init() {}

        init(_ resolved: Configuration.Resolved) {
            let run = resolved.run, configuration = run.configuration
            (kind, passes, cap, sheets) = (run.kind, run.passes, configuration.maxImages, configuration.sheets)
            canvas = "\(configuration.canvasWidth)x\(configuration.canvasHeight)"
            naturalHeight = configuration.naturalHeight
            (layout, fit) = (configuration.layoutName, configuration.layoutOptions.fit)
            aimsBelowCaptions = configuration.layoutOptions.aimsBelowCaptions
            (label, title) = (configuration.captions.label?.source, configuration.captions.title?.source)
            (allowPortrait, dryRun, readAhead) = (configuration.allowPortrait, configuration.dryRun, configuration.headerReadAhead)
            (html, page) = (configuration.htmlPage?.description, run.page?.description)
            shard = configuration.shard?.description
            film = configuration.film.map { "\($0.count)\($0.every.map { " every \($0)" } ?? "")\($0.scenes ? " scenes" : "")" }
            (video, sort, pickCap) = (configuration.video, configuration.sort, configuration.pickCap)
            (jobs, decodeMiB) = (configuration.jobs, configuration.decodeMemoryBudget >> 20)
            watch = run.watchEvery
        }
    }

    /// One row: what is asked, and what differs from the seed collage's values.
    struct Row: Sendable {
        let asked: String
        let configure: @Sendable (inout Configuration) -> Void
        let expected: @Sendable (inout Values) -> Void
    }

    static let diffLabel = "{path} · {status} · {pixels} px ({percent})"
    static let filmTitle = "{file} · {size} · {duration} · {resolution} · {fps} fps · {codec} · {bitrate} · {audio}"

    static let rows: [Row] = [
        Row(asked: "photos", configure: { _ in }, expected: { _ in }),
        Row(asked: "--max 9 --size 1600x --jobs 3 --decode-memory 64", configure: {
            ($0.max, $0.size, $0.jobs, $0.decodeMemory) = (9, CanvasSize("1600x"), 3, 64)
        }, expected: { ($0.cap, $0.canvas, $0.naturalHeight, $0.jobs, $0.decodeMiB) = (9, "1600x1067", true, 3, 64) }),
        Row(asked: "--tile 4x2", configure: { $0.tile = GridShape("4x2") },
            expected: { ($0.cap, $0.layout) = (8, "grid") }),
        Row(asked: "--sheets --max 12 --html index.html", configure: {
            ($0.sheets, $0.max, $0.html) = (true, 12, PathName("index.html"))
        }, expected: { ($0.kind, $0.sheets, $0.cap, $0.html, $0.page) = (.sheets, true, 12, "index.html", "index.html") }),
        Row(asked: "--sheets --shard 1/3", configure: { ($0.sheets, $0.shard) = (true, "1/3") },
            expected: { ($0.kind, $0.sheets, $0.shard) = (.sheets, true, "1/3") }),
        Row(asked: "--per-folder -o '{path}.jpg'", configure: {
            ($0.perFolder, $0.output) = (true, PathName("{path}.jpg"))
        }, expected: { ($0.kind, $0.passes) = (.folders, .folders) }),
        Row(asked: "--group-by day -o '{group}.jpg'", configure: {
            ($0.groupBy, $0.output) = ("day", PathName("{group}.jpg"))
        }, expected: { ($0.kind, $0.passes, $0.sort) = (.groups, .groups(.day), .taken) }),
        Row(asked: "--pick", configure: { $0.pick = true }, expected: { ($0.kind, $0.pickCap) = (.pick, 6) }),
        Row(asked: "--pick --sheets", configure: { ($0.pick, $0.sheets) = (true, true) },
            expected: { ($0.kind, $0.sheets) = (.pick, true) }),
        Row(asked: "--watch --interval 5", configure: { ($0.watch, $0.interval) = (true, 5) },
            expected: { $0.watch = 5 }),
        Row(asked: "--diff base", configure: { $0.diff = PathName("base") }, expected: {
            ($0.kind, $0.layout, $0.label, $0.allowPortrait) = (.diff, "justified", ResolutionTableTests.diffLabel, true)
        }),
        Row(asked: "--diff base --tile 3x2 --label {name} --html review.html", configure: {
            ($0.diff, $0.tile, $0.label, $0.html) = (PathName("base"), GridShape("3x2"), "{name}", PathName("review.html"))
        }, expected: { ($0.kind, $0.layout, $0.label, $0.allowPortrait) = (.diff, "grid", "{name}", true) }),
        Row(asked: "--diff base --approve a.png", configure: {
            ($0.diff, $0.approve) = (PathName("base"), [PathName("a.png")])
        }, expected: {
            ($0.kind, $0.layout, $0.label, $0.allowPortrait, $0.dryRun) = (.diff, "justified", ResolutionTableTests.diffLabel, true, true)
        }),
        Row(asked: "--frames 9 clip.mp4", configure: { $0.frames = 9 }, expected: {
            ($0.kind, $0.passes, $0.cap, $0.canvas, $0.naturalHeight) = (.film, .single, 9, "1200x800", true)
            ($0.layout, $0.fit, $0.aimsBelowCaptions, $0.video) = ("grid", .contain, true, true)
            ($0.label, $0.title, $0.film) = ("{time}", ResolutionTableTests.filmTitle, "9")
        }),
        Row(asked: "--every 10 -o '{stem}-{n}.jpg' --fit cover --label {index}", configure: {
            ($0.every, $0.output, $0.fit, $0.label) = (10, PathName("{stem}-{n}.jpg"), .cover, "{index}")
        }, expected: {
            ($0.kind, $0.cap, $0.sheets, $0.canvas, $0.naturalHeight) = (.film, 25, true, "1200x800", true)
            ($0.layout, $0.fit, $0.aimsBelowCaptions, $0.video) = ("grid", .cover, true, true)
            ($0.label, $0.title, $0.film) = ("{index}", ResolutionTableTests.filmTitle, "25 every 10.0")
        }),
        Row(asked: "--plan job.plan --sheets --html index.html --jobs 2", configure: {
            ($0.plan, $0.sheets, $0.html, $0.jobs) = (PathName("job.plan"), true, PathName("index.html"), 2)
        }, expected: { ($0.kind, $0.sheets, $0.dryRun, $0.readAhead, $0.jobs) = (.plan, true, true, 16, 2) }),
        Row(asked: "--plan job.plan --per-folder -o '{path}.jpg'", configure: {
            ($0.plan, $0.perFolder, $0.output) = (PathName("job.plan"), true, PathName("{path}.jpg"))
        }, expected: {
            ($0.kind, $0.passes, $0.dryRun, $0.readAhead) = (.plan, .folders, true, max(16, 4 * CollageConfiguration.defaultJobs))
        }),
    ]

    func testEachKindResolvesAsTheTableSays() throws {
        for row in Self.rows {
            var asked = Configuration(inputs: [.path(PathName(row.asked.hasPrefix("--frames") ? "clip.mp4" : "photos"))])
            row.configure(&asked)
            var expected = Values()
            row.expected(&expected)
            do throws(ConfigurationError) {
                let resolved = try asked.resolve()
                XCTAssertEqual(Values(resolved), expected, row.asked)
            } catch {
                XCTFail("\(row.asked): \(error)")
            }
        }
    }

    /// A run from a plan: a single run is its shard's (the whole plan
    /// without `--shard`), and only the first shard writes the page.
    func testARunFromAPlanTakesItsShardAndTheFirstWritesThePage() {
        var asked = Configuration(inputs: [.path(PathName("photos"))])
        (asked.sheets, asked.html, asked.fromPlan) = (true, PathName("index.html"), PathName("job.plan"))
        for (shard, expected, page) in [(nil, "0/1", true), ("0/2", "0/2", true), ("1/2", "1/2", false)] as [(String?, String, Bool)] {
            asked.shard = shard
            let run = ResolvedRun(asked.resolvedForTable(), perFolder: false, watchEvery: nil)
            XCTAssertEqual(run.kind, .fromPlan)
            XCTAssertEqual(run.configuration.shard?.description, expected)
            XCTAssertEqual(run.page != nil, page, shard ?? "no shard")
        }
        asked.groupBy = "day"
        let grouped = ResolvedRun(asked.resolvedForTable(), perFolder: false, watchEvery: nil)
        XCTAssertEqual(grouped.passes, .groups(.day))
        XCTAssertEqual(grouped.configuration.shard?.description, "1/2", "the groups are shared among the shards, not cut here")
    }

    /// What differs from one pass to the next is decided beside the
    /// resolution: a tick of `--watch`, a folder's, a group's.
    func testEachPassIsTheJobsConfigurationAndWhatThePassFound() throws {
        var asked = Configuration(inputs: [.path(PathName("photos"))])
        (asked.watch, asked.perFolder, asked.output, asked.shard) = (true, true, PathName("out/{path}.jpg"), "0/2")
        let run = try asked.resolve().run
        let (first, later) = (run.watchPass(first: true), run.watchPass(first: false))
        XCTAssertEqual([first.recordState, first.skipUnchanged, later.recordState, later.skipUnchanged], [true, false, true, true])
        let folder = run.configuration.folderPass(PathName("photos/2024"), root: PathName("photos"), planOffset: 40)
        XCTAssertEqual(folder.output, PathName("out/2024.jpg"))
        XCTAssertEqual(folder.inputs, [.path(PathName("photos/2024"))])
        XCTAssertNil(folder.shard)
        XCTAssertFalse(folder.recursive)
        XCTAssertEqual(folder.fromPlanOffset, 40)
        var grouped = run.configuration
        grouped.output = PathName("{group}.jpg")
        let group = grouped.groupPass(GroupPart(name: "2024-08-14", images: nil))
        XCTAssertEqual(group.output, PathName("2024-08-14.jpg"))
        XCTAssertEqual(group.captions.group, "2024-08-14")
        XCTAssertNil(group.fromPlanOffset)
    }

    /// `validate()` reads no file: a `--rules` file that is not there is
    /// found by `resolve()`, once, and by nothing before it.
    func testValidateReadsNoFile() {
        var asked = Configuration(inputs: [.path(PathName("shots"))])
        (asked.diff, asked.rules) = (PathName("base"), PathName("/nonexistent/collage-rules"))
        XCTAssertNoThrow(try asked.validate())
        XCTAssertThrowsError(try asked.resolve()) { error in
            XCTAssertTrue("\(error)".hasPrefix("--rules: cannot read '/nonexistent/collage-rules'"), "\(error)")
        }
    }
}

private extension Configuration {
    /// The run's configuration of a run from a plan, as `resolve()` makes it
    /// once the plan is read (no plan file here: the table's own).
    func resolvedForTable() -> CollageConfiguration {
        var options = self
        options.fromPlan = nil
        var configuration = (try? options.collageConfiguration(DiffFiles(), shard: nil)) ?? CollageConfiguration(inputs: [])
        configuration.shard = shard.flatMap { try? Shard.parse($0, environment: [:]).get() }
        configuration.fromPlan = fromPlan
        return configuration
    }
}
