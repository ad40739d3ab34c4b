import CollageTestSupport
import Foundation
import Locking
import XCTest
@testable import Vips

/// The one ExifTool the tests keep running (`ExifToolServer`) writes what
/// the command line writes, says when a command fails, and takes the next
/// command after a failed one; each is checked by a separate `exiftool`
/// process reading the file back.
final class ExifToolServerTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            throw XCTSkip("exiftool is not installed (scripts/test installs it)")
        }
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func photo(_ name: String) throws -> String {
        let path = folder.file(name)
        try writeBytes(Encoder.encode(PixelBuffer(width: 32, height: 24, fill: .white), suffix: ".jpg").bytes, to: path)
        return path
    }

    /// `exiftool -s3 -TAG path` in a process of its own.
    private func read(_ tag: String, _ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = ["-s3", "-" + tag, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testWritesFailuresAndTheCommandAfterAFailure() throws {
        let a = try photo("a.jpg"), b = try photo("b.jpg")
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2026:08:14 09:00:01", a])
        XCTAssertEqual(try read("DateTimeOriginal", a), "2026:08:14 09:00:01")

        XCTAssertThrowsError(try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-XMP:Rating=3",
                                                            folder.file("missing.jpg")])) { error in
            XCTAssertTrue("\(error)".contains("File not found"), "\(error)")
        }
        XCTAssertThrowsError(try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=not a date", b]),
                             "a value ExifTool refuses writes nothing, as the command line exits 1")

        // The next command is carried out, and a value with a line break (one argument a line) too.
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-XMP:Rating=4", "-XMP:Label=Red", b])
        XCTAssertEqual(try read("XMP:Rating", b), "4")
        XCTAssertEqual(try read("XMP:Label", b), "Red")
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-XMP-dc:Description=two\nlines", b])
        XCTAssertEqual(try read("XMP-dc:Description", b), "two.lines", "exiftool prints a line break as a dot")
        XCTAssertEqual(try read("DateTimeOriginal", b), "", "nothing was written by the refused command")
    }

    /// A command that says more on standard error than a pipe holds
    /// (2,000 missing files: about 200 KB of `Error: File not found`)
    /// before it prints its marker on standard output still ends, with
    /// every line it said. Run on a thread of its own so that a server
    /// that waited on the wrong pipe fails this test rather than hanging
    /// the shard.
    func testACommandThatSaysMoreOnStandardErrorThanAPipeHoldsEnds() throws {
        let missing = (0..<2000).map { folder.file(String(repeating: "m", count: 80) + "-\($0).jpg") }
        let failure = Locked<Error?>(nil)
        let ended = expectation(description: "the command ended")
        Thread {
            do { try TestMedia.run("exiftool", ["-overwrite_original", "-XMP:Rating=3"] + missing) } catch {
                failure.withLock { $0 = error }
            }
            ended.fulfill()
        }.start()
        wait(for: [ended], timeout: 600)
        let said = try XCTUnwrap(failure.withLock { $0 }.map { "\($0)" }, "2,000 missing files are a failure")
        XCTAssertEqual(said.components(separatedBy: "File not found").count - 1, 2000)
        XCTAssertTrue(said.contains("2000 files weren't updated"), String(said.suffix(200)))

        // And the server takes the next command.
        let a = try photo("after.jpg")
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-XMP:Rating=2", a])
        XCTAssertEqual(try read("XMP:Rating", a), "2")
    }
}
