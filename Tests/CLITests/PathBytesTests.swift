import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Inputs": paths are bytes. Names that are not UTF-8, or that hold
/// spaces, newlines (with -0), `[`, `]` or a leading `-` must work, from
/// standard input and from the command line; --json keeps them recoverable.
final class PathBytesTests: CLITestCase {
    /// Names with everything awkward, each a PNG of its own colour.
    private let awkward: [[UInt8]] = [
        b("with space.png"),
        b("[1].png"),
        b("-dash.png"),
        [0xFF, 0xFE] + b(" latin1 \u{E9}") + [0xE9] + b(".png"),  // not UTF-8
        b("caf\u{E9}.png"),                                        // UTF-8, not ASCII
        b("new\nline.png"),
    ]

    private func makeAwkwardFiles(including names: [[UInt8]]) -> [RGB] {
        makeFolder("in")
        var colours: [RGB] = []
        for (index, name) in names.enumerated() {
            writeImage(palette[index], to: b("in/") + name)
            colours.append(palette[index])
        }
        return colours
    }

    /// Checks a --json run that used `expected` (byte paths) in that order.
    private func assertUsed(_ result: ProcessResult, _ expected: [[UInt8]], output: [UInt8],
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
        XCTAssertEqual(result.stderr, [], result.summary, file: file, line: line)
        let all = jsonEvents(result, file: file, line: line)
        let written = events(all, "written")
        XCTAssertEqual(written.count, 1, result.summary, file: file, line: line)
        guard let sheet = written.first else { return }
        XCTAssertEqual(pathBytes(sheet, "output"), output, file: file, line: line)
        let images = pathListBytes(sheet, "images")
        XCTAssertEqual(images, expected, "images, in order, as exact bytes", file: file, line: line)
        // A name that is not UTF-8 comes with its bytes in base64.
        if expected.contains(where: { String(validating: $0, as: UTF8.self) == nil }) {
            XCTAssertNotNil(sheet["images_base64"], "images_base64 for names that are not UTF-8",
                            file: file, line: line)
        }
        // Every per-image event names its file recoverably too.
        let accepted = events(all, "accepted").compactMap { pathBytes($0, "path") }
        XCTAssertEqual(accepted, expected, "accepted events, exact bytes", file: file, line: line)
        for event in events(all, "accepted") {
            let text = event["path"] as? String ?? ""
            if text.contains("\u{FFFD}") {
                XCTAssertNotNil(event["path_base64"], "path_base64 for \(text)", file: file, line: line)
            }
        }
        XCTAssertEqual(all.last?["used"] as? Int, expected.count, file: file, line: line)
    }

    /// `-0 -`: NUL-separated names, newline included, in stdin order (not
    /// byte order); the collage has their colours in that order.
    func testNulSeparatedListOnStandardInput() throws {
        let colours = makeAwkwardFiles(including: awkward)
        let order = [5, 3, 0, 2, 4, 1]  // a deliberate shuffle
        let paths = order.map { b("in/") + awkward[$0] }
        let stdin: [UInt8] = paths.flatMap { $0 + [UInt8(0)] }
        let result = try collage([b("-0"), b("-"), b("--json"), b("--max"), b("10"), b("-o"), b("out.png")], stdin: stdin)
        assertUsed(result, paths, output: b("out.png"))
        if let picture = decoded("out.png") { assertTiles(picture, order.map { colours[$0] }, tolerance: 2) }

        // Same with --null spelled out, without --json: stdout is only the path.
        let plain = try collage([b("--null"), b("-"), b("--max"), b("10"), b("-o"), b("plain.png")], stdin: stdin)
        assertSuccess(plain, stdout: "plain.png\n")
    }

    /// `-` with newlines: every name but the one holding a newline, and the
    /// empty line and a missing final newline are harmless.
    func testNewlineSeparatedListOnStandardInput() throws {
        let names = Array(awkward.dropLast())  // no newline in names here
        let colours = makeAwkwardFiles(including: names)
        let order = [3, 1, 4, 0, 2]
        let paths = order.map { b("in/") + names[$0] }
        var stdin: [UInt8] = paths.flatMap { $0 + b("\n") }
        stdin.removeLast()  // no final newline
        let result = try collage([b("-"), b("--json"), b("--max"), b("10"), b("-o"), b("out.png")], stdin: stdin)
        assertUsed(result, paths, output: b("out.png"))
        if let picture = decoded("out.png") { assertTiles(picture, order.map { colours[$0] }, tolerance: 2) }
    }

    /// An output name that is not UTF-8: stdout carries its exact bytes.
    func testOutputNameThatIsNotUTF8IsPrintedAsBytes() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        let output = b("out-") + [0xE9, 0xFF] + b(".png")
        let result = try collage([b("in"), b("-o"), output])
        assertSuccess(result, stdout: output + b("\n"))
        XCTAssertNotNil(decoded(output))

        let json = try collage([b("in"), b("--json"), b("--output=") + output])
        XCTAssertEqual(json.status, 0, json.summary)
        let written = events(jsonEvents(json), "written")
        XCTAssertEqual(written.first.flatMap { pathBytes($0, "output") }, output)
        XCTAssertNotNil(written.first?["output_base64"])
    }

    /// INPUT names on the command line that are not UTF-8, given as raw argv
    /// bytes. Two of them differ only in bytes that are not UTF-8 (they
    /// look the same once decoded with U+FFFD): both must be used, each for
    /// itself. And `[1].png`, whose brackets libvips would read as options.
    func testCommandLineNamesThatAreNotUTF8() throws {
        let first = [0xFF] + b("x.png")
        let second = [0xFE] + b("x.png")
        let names = [first, b("[1].png"), second, b("with space.png")]
        let colours = makeAwkwardFiles(including: names)
        let arguments = names.map { b("in/") + $0 }
        let result = try collage(arguments + [b("--json"), b("-o"), b("out.png")])
        assertUsed(result, arguments, output: b("out.png"))
        if let picture = decoded("out.png") { assertTiles(picture, colours, tolerance: 2) }
    }

    /// An output name and an INPUT name that look the same once decoded
    /// (they differ only in bytes that are not UTF-8), the output first on
    /// the command line: each keeps its own bytes; the input is read, not
    /// overwritten, and the output is written where it was asked.
    func testOutputAndInputThatLookAlikeKeepTheirOwnBytes() throws {
        let output = [0xFD] + b(".png")
        let input = [0xFE] + b(".png")
        writeImage(palette[0], to: input)
        let before = contents(input)!
        let result = try collage([b("-o"), output, input, b("--json")])
        assertUsed(result, [input], output: output)
        assertSameBytes(contents(input), before, "the input is not overwritten")
        if let picture = decoded(output) { assertTiles(picture, [palette[0]], tolerance: 2) }

        let equals = try collage([b("--output=") + output, input])
        assertSuccess(equals, stdout: output + b("\n"))
        assertSameBytes(contents(input), before, "the input is not overwritten")
    }

    /// A file whose name starts with `-`, given after `--` (from its own folder).
    func testLeadingDashFileAfterDoubleDash() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/-dash.png")
        writeImage(palette[1], to: "in/-o.png")
        let result = try collage(["-o", "../out.png", "--json", "--", "-dash.png", "-o.png"], directory: path("in"))
        assertUsed(result, [b("-dash.png"), b("-o.png")], output: b("../out.png"))
        if let picture = decoded("out.png") { assertTiles(picture, [palette[0], palette[1]], tolerance: 2) }
    }

    /// A listed path that does not exist is one input that failed (the INPUT
    /// is `-`, which exists): reported, the others used, 65. An empty list
    /// has nothing eligible: 66.
    func testMissingAndEmptyListsOnStandardInput() throws {
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        let result = try collage(["-", "--json", "-o", "out.png"], stdin: b("in/a.png\nin/gone.png\n"))
        XCTAssertEqual(result.status, 65, result.summary)
        let all = jsonEvents(result)
        XCTAssertEqual(events(all, "failed").map { $0["path"] as? String }, ["in/gone.png"])
        XCTAssertEqual(events(all, "written").first?["images"] as? [String], ["in/a.png"])
        XCTAssertEqual(result.stderrLines.count, 2, "the failed file, then the line of the exit\n\(result.summary)")

        assertFailure(try collage(["-", "-o", "empty.png"], stdin: []), status: 66)
        XCTAssertFalse(exists("empty.png"))
    }

    /// Awkward names found by the directory scan (not named by anyone):
    /// used in byte order of their names.
    func testAwkwardNamesInAScannedFolder() throws {
        _ = makeAwkwardFiles(including: awkward)
        let result = try collage([b("in"), b("--json"), b("--max"), b("10"), b("-o"), b("out.png")])
        let sorted = awkward.sorted { $0.lexicographicallyPrecedes($1) }.map { b("in/") + $0 }
        assertUsed(result, sorted, output: b("out.png"))
    }
}
