import FileFacts
import Foundation
import Glibc
import CollageTestSupport
import XCTest
@testable import Vips

// Helpers shared by the Vips tests: a temporary folder, files as bytes, the
// `vips` command (libvips-tools) for the inputs the Vips module cannot encode
// itself, and colour assertions.

/// The folder of the checked-in sample photos.
let samplesDirectory: String = {
    // .../Tests/VipsTests/VipsTestSupport.swift -> .../samples
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples").path
}()

func writeBytes(_ bytes: [UInt8], to path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        throw TestFailure("cannot write \(path)")
    }
}

func readBytes(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { throw TestFailure("cannot read \(path)") }
    return [UInt8](data)
}

/// Encodes `pixels` with the Vips module and writes the file.
func writeImage(_ pixels: PixelBuffer, suffix: String, orientation: Int? = nil, to path: String) throws {
    try writeBytes(Encoder.encode(pixels, suffix: suffix, orientation: orientation).bytes, to: path)
}

/// Runs a libvips-tools command (`vips`, `vipsheader`) and returns its
/// standard output; a non-zero exit is an error carrying its standard error.
@discardableResult
func runTool(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TestFailure("\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                          + String(decoding: err, as: UTF8.self)
                          + (process.terminationStatus == 127 ? " (install libvips-tools)" : ""))
    }
    return String(decoding: out, as: UTF8.self)
}

/// Opens `path` read-only for the descriptor-based readers; closes after `body`.
func withDescriptor<R>(_ path: String, _ body: (Int32) throws -> R) throws -> R {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    return try body(descriptor)
}

func header(of path: String) throws -> ImageHeader {
    try withDescriptor(path) { try ImageFile.header(descriptor: $0) }
}

func tile(of path: String, width: Int, height: Int, background: RGB = .white) throws -> PixelBuffer {
    try withDescriptor(path) { try ImageFile.tile(descriptor: $0, width: width, height: height, background: background) }
}

/// Asserts a buffer is a 3-band tile of exactly `width` x `height`.
func XCTAssertTile(_ pixels: PixelBuffer, width: Int, height: Int, _ message: @autoclosure () -> String = "",
                   file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(pixels.width, width, "width \(message())", file: file, line: line)
    XCTAssertEqual(pixels.height, height, "height \(message())", file: file, line: line)
    XCTAssertEqual(pixels.bands, 3, "bands \(message())", file: file, line: line)
    XCTAssertEqual(pixels.byteCount, width * height * 3, "8-bit samples \(message())", file: file, line: line)
}

/// A 60x40 PNG of `colour` in `folder` (flat.png): the starting point of
/// conversions to the formats libvips reads, ours or not.
func flatPNG(in folder: TemporaryDirectory, colour: RGB = RGB(red: 200, green: 30, blue: 60)) throws -> String {
    let path = folder.file("flat.png")
    try writeImage(PixelBuffer(width: 60, height: 40, fill: colour), suffix: ".png", to: path)
    return path
}
