import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// Photos with dates for the tests of `--sort` and `--group-by`: EXIF
/// written by ExifTool, modification times set by touch, every run in UTC
/// (a clock without an offset is read as the machine's zone).
extension CLITestCase {
    func requireExifTool() throws {
        guard haveProgram("exiftool") else { throw XCTSkip("exiftool is not installed (libimage-exiftool-perl)") }
    }

    /// A JPEG of one colour at `relative`, with the EXIF fields given (ExifTool's
    /// own names, values written as they are: `-TAG#=VALUE`, so that a date
    /// that is not one is written too).
    func writePhoto(_ relative: String, _ colour: RGB, exif: [String: String] = [:], modified: String? = nil) {
        write(image(colour, suffix: ".jpg"), to: relative)
        if !exif.isEmpty {
            let arguments = ["-q", "-overwrite_original"]
                + exif.sorted { $0.key < $1.key }.map { "-\($0.key)#=\($0.value)" } + [path(relative)]
            XCTAssertNoThrow(try TestMedia.run("exiftool", arguments), "exiftool \(relative)")
        }
        if let modified { touch(relative, modified) }
    }

    /// Sets the modification time, as `touch -d` reads `date` ("2026-08-14 12:00:00 UTC").
    func touch(_ relative: String, _ date: String) {
        let result = try? runProcess([b("touch"), b("-d"), b(date), b(path(relative))])
        XCTAssertEqual(result?.status, 0, "touch \(relative): \(result?.summary ?? "did not run")")
    }

    /// `collage` in UTC.
    func collageUTC(_ arguments: [String], timeout: Double = 120) throws -> ProcessResult {
        try runProcess(command(arguments.map(b)), directory: dir, environment: ["TZ": "UTC"], timeout: timeout)
    }

    /// The images of each `written` event, by output.
    func writtenImages(_ result: ProcessResult) -> [String: [String]] {
        var outputs: [String: [String]] = [:]
        for event in events(jsonEvents(result), "written") {
            outputs[event["output"] as? String ?? "?"] = event["images"] as? [String] ?? []
        }
        return outputs
    }

    /// The photos of `events`: five, taken (by EXIF, name or time) in the
    /// order z, b, IMG_…, PXL_…, a, which is not their names' order.
    func makeDatedPhotos(in folder: String = "pics") throws {
        try requireExifTool()
        makeFolder(folder)
        // 15:30 at +00:00 is 15:30 UTC; 15:30 at +02:00 is 13:30 UTC.
        writePhoto("\(folder)/a.jpg", palette[0], exif: ["DateTimeOriginal": "2026:08:14 15:30:12", "OffsetTimeOriginal": "+00:00"],
                   modified: "2026-01-01 00:00:00 UTC")
        writePhoto("\(folder)/b.jpg", palette[1], exif: ["DateTimeOriginal": "2026:08:14 15:30:12", "OffsetTimeOriginal": "+02:00"],
                   modified: "2026-01-02 00:00:00 UTC")
        writePhoto("\(folder)/IMG_20260814_140000.jpg", palette[2], modified: "2026-01-03 00:00:00 UTC")
        writePhoto("\(folder)/PXL_20260814_143000123.jpg", palette[3], modified: "2026-01-04 00:00:00 UTC")
        writePhoto("\(folder)/z.jpg", palette[4], modified: "2026-08-14 12:00:00 UTC")
    }
}
