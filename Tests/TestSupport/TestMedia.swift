import Foundation
import Vips

/// Videos and RAW files made in the tests with Debian's tools: `ffmpeg`
/// (lavfi sources, remuxing) and ExifTool (a camera's preview written into
/// a DNG). scripts/test installs both.
public enum TestMedia {
    /// The left and right halves of the test videos' picture.
    public static let left = RGB(red: 0xD0, green: 0x20, blue: 0x20)
    public static let right = RGB(red: 0x20, green: 0x40, blue: 0xD0)

    /// Runs a program (found on PATH) and throws with its standard error
    /// when it fails. ExifTool's commands go to the one ExifTool this
    /// process keeps running (`ExifToolServer`).
    public static func run(_ program: String, _ arguments: [String]) throws {
        if program == "exiftool" { return try ExifToolServer.shared.run(arguments) }
        try runProcess(program, arguments)
    }

    /// Runs a program (found on PATH) in a process of its own and throws
    /// with its standard error when it fails.
    public static func runProcess(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                              + String(decoding: text, as: UTF8.self)
                              + (process.terminationStatus == 127 ? " (scripts/test installs it)" : ""))
        }
    }

    /// An H.264 MP4 of `seconds` at 320x240, 25 frames a second, a keyframe
    /// a second: black for the first `black` seconds, then `left` on the
    /// left half and `right` on the right.
    public static func video(_ path: String, seconds: Double = 10, black: Double = 2, extra: [String] = []) throws {
        let colour = { (rgb: RGB) in "0x" + String(format: "%02X%02X%02X", rgb.red, rgb.green, rgb.blue) }
        try run("ffmpeg", ["-v", "error", "-y",
                           "-f", "lavfi", "-i", "color=c=\(colour(left)):s=320x240:r=25:d=\(seconds)",
                           "-f", "lavfi", "-i", "color=c=\(colour(right)):s=160x240:r=25:d=\(seconds)",
                           "-filter_complex", "[0][1]overlay=x=160,drawbox=enable='lt(t,\(black))':c=black:t=fill,format=yuv420p",
                           "-c:v", "libx264", "-g", "25"] + extra + [path])
    }

    /// The bytes of a video made by `video` in `folder` (its index, moov,
    /// at the end, as ffmpeg writes it by default).
    public static func videoBytes(in folder: String, seconds: Double) throws -> [UInt8] {
        let path = folder + "/.made.mp4"
        try video(path, seconds: seconds, black: 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let data = FileManager.default.contents(atPath: path) else { throw TestFailure("cannot read \(path)") }
        return [UInt8](data)
    }

    /// `source` remuxed (no re-encoding) with a display matrix turning it
    /// a quarter: FFmpeg shows it upright, portrait.
    public static func rotated(_ source: String, to path: String) throws {
        try run("ffmpeg", ["-v", "error", "-y", "-i", source, "-c", "copy", "-metadata:s:v:0", "rotate=90", path])
    }

    /// A DNG (`DNGFile`) whose placeholder preview ExifTool replaces with
    /// `preview`, as it writes a camera's: ExifTool cannot add a preview
    /// where none is, so the placeholder makes the room.
    public static func dngWithExifToolPreview(_ dng: DNGFile, preview: [UInt8], at path: String) throws {
        var placeholder = dng
        placeholder.preview = try Encoder.encode(PixelBuffer(width: 16, height: 16, fill: .black), suffix: ".jpg").bytes
        guard FileManager.default.createFile(atPath: path, contents: Data(placeholder.bytes)),
              FileManager.default.createFile(atPath: path + ".preview.jpg", contents: Data(preview)) else {
            throw TestFailure("cannot write \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path + ".preview.jpg") }
        try run("exiftool", ["-q", "-overwrite_original", "-PreviewImage<=\(path).preview.jpg", path])
    }
}
