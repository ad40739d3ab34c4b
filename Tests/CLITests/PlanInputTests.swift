import Foundation
import Glibc
import XCTest

/// A plan that cannot be trusted is refused before anything is decoded,
/// with one line and a usage or input status; an image changed since the
/// plan is `failed`, saying so; never a wrong sheet.
final class PlanInputTests: CLITestCase {
    private let arguments = ["--plan", "job.plan", "--sheets", "--max", "3", "--size", "120x80", "in", "-o", "out/s-{n}.png"]

    override func setUpWithError() throws {
        try super.setUpWithError()
        makeShardPhotos("in", count: 12, folders: 2)
        makeFolder("out")
        let result = try collage(arguments)
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, "job.plan\n", "the plan's path is the result")
    }

    private var plan: [UInt8] { contents("job.plan") ?? [] }

    /// `--from-plan PLAN` plus `extra` exits `status` with one line saying `words`, writing nothing.
    private func assertRefused(_ plan: String, _ extra: [String] = [], status: Int32, saying words: String,
                               directory: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try collage(["--from-plan", plan] + extra, directory: directory)
        XCTAssertEqual(result.status, status, result.summary, file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary, file: file, line: line)
        XCTAssertTrue(result.stderrText.contains(words), result.summary, file: file, line: line)
        XCTAssertEqual(outputs("out"), [:], "nothing written", file: file, line: line)
    }

    func testTruncatedEditedOtherVersionAndMissingPlans() throws {
        write(Array(plan.prefix(plan.count / 2)), to: "cut.plan")
        try assertRefused("cut.plan", status: 66, saying: "cut short")
        let lines = plan.split(separator: UInt8(ascii: "\n"))
        write(Array(lines.dropLast().joined(separator: [UInt8(ascii: "\n")])) + [UInt8(ascii: "\n")], to: "headless.plan")
        try assertRefused("headless.plan", status: 66, saying: "cut short")
        let text = String(decoding: plan, as: UTF8.self)
        write(b(text.replacingOccurrences(of: "\"max\":3", with: "\"max\":4")), to: "edited.plan")
        try assertRefused("edited.plan", status: 66, saying: "changed after it was written")
        write(b(text.replacingOccurrences(of: "s-0002.png", with: "s-0001.png")), to: "swapped.plan")
        try assertRefused("swapped.plan", status: 66, saying: "changed after it was written")
        write(b(text.replacingOccurrences(of: "\"collage_plan\":2", with: "\"collage_plan\":3")), to: "v3.plan")
        try assertRefused("v3.plan", status: 64, saying: "version 3")
        // Version 1 recorded the command line, not the configuration: refused, saying to plan again.
        write(b(text.replacingOccurrences(of: "\"collage_plan\":2", with: "\"collage_plan\":1")), to: "v1.plan")
        try assertRefused("v1.plan", status: 64, saying: "version 1; this collage reads version 2: plan again")
        write(b("{\"event\":\"summary\"}\n"), to: "other.plan")
        try assertRefused("other.plan", status: 66, saying: "not a collage plan")
        try assertRefused("missing.plan", status: 66, saying: "No such file")
    }

    /// Options that would change the plan, or other inputs, are usage errors.
    func testOptionsAndInputsBesideThePlanAreRefused() throws {
        try assertRefused("job.plan", ["--max", "4"], status: 64, saying: "would change it")
        try assertRefused("job.plan", ["in"], status: 64, saying: "would change it")
        try assertRefused("job.plan", ["-o", "other/s.png"], status: 64, saying: "would change it")
        try assertRefused("job.plan", ["--dry-run"], status: 64, saying: "would change it")
        makeFolder("elsewhere")
        try assertRefused("../job.plan", status: 64, saying: "cd ", directory: path("elsewhere"))
        let planning = try collage(arguments + ["--shard", "0/2"])
        XCTAssertEqual(planning.status, 64, planning.summary)
    }

    /// Inputs moved since the plan: each image is `failed` (gone), the run 65/66, no sheet written wrong.
    func testMovedInputs() throws {
        XCTAssertEqual(rename(path("in"), path("moved")), 0)
        let result = try collage(["--from-plan", "job.plan", "--json"])
        XCTAssertEqual(result.status, 66, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        XCTAssertEqual(outputs("out"), [:])
    }

    /// An image changed since the plan is `failed` with a reason that says
    /// so; its sheet is one short; the other shard's sheets are untouched.
    func testChangedImageIsFailed() throws {
        let sheets = String(decoding: plan, as: UTF8.self).split(separator: "\n").filter { $0.contains("\"sheet\":1,") }
        XCTAssertEqual(sheets.count, 1)
        let changed = "in/f0/p000.png"
        XCTAssertTrue(sheets[0].contains(changed), "the first sheet holds \(changed)")
        writeImage(palette[5], to: changed, width: 80, height: 48)
        let result = try collage(["--from-plan", "job.plan", "--json", "--shard", "0/2"])
        XCTAssertEqual(result.status, 65, result.summary)
        let failed = events(jsonEvents(result), "failed")
        XCTAssertEqual(failed.count, 1, result.summary)
        XCTAssertEqual(failed.first.flatMap { field($0, "path") }, changed)
        XCTAssertTrue(failed.first.flatMap { field($0, "error") }?.contains("changed since the plan") == true, result.summary)
        let written = events(jsonEvents(result), "written")
        XCTAssertEqual((written.first?["images"] as? [String])?.count, 2, "sheet 1 is one short")
        XCTAssertFalse((written.first?["images"] as? [String] ?? []).contains(changed))
        let other = try collage(["--from-plan", "job.plan", "--shard", "1/2"])
        XCTAssertEqual(other.status, 0, other.summary)
    }

    /// SIGINT while the plan is being written (its temporary file is on
    /// disk): 130, one line, and neither a plan nor its temporary file left.
    /// The run is held at a known point, not stopped at a moment chosen by
    /// time (on a busy machine that moment could come when the plan was
    /// already being put in place, and there was nothing to interrupt):
    /// its JSON events fill standard output, which is read only after the
    /// signal, so it waits in write(1), the plan unfinished.
    func testInterruptedPlanLeavesNothing() throws {
        makeFolder("many")
        writeImage(palette[0], to: "many/0000.png")
        for index in 1..<4000 { hardLink("many/0000.png", b(String(format: "many/%04d.png", index))) }
        makeFolder("plans")
        let process = try start(["--plan", "plans/job.plan", "--sheets", "--json", "many", "-o", "out/s-{n}.png"])
        XCTAssertTrue(process.awaitState(reading: false) { process.isBlockedWriting(1) },
                      "the run waits for its standard output to be read")
        XCTAssertTrue(listingText("plans").contains { $0.contains(".collage-tmp-") }, "the plan is being written")
        process.send(SIGINT)
        let result = process.wait(timeout: 120)
        XCTAssertEqual(result.status, 130, result.summary)
        XCTAssertEqual(result.stderrLines.count, 1, result.summary)
        XCTAssertEqual(listingText("plans"), [], "no plan and no temporary file")
    }
}
