import Foundation
import Glibc
import XCTest
@testable import Vips

// Helpers shared by the Vips tests: a temporary folder, files as bytes, the
// `vips` command (libvips-tools) for the inputs the Vips module cannot encode
// itself, and colour assertions.

/// A fresh folder under /tmp, removed when the object goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/vips-tests-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

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

func XCTAssertColour(_ actual: RGB, _ expected: RGB, tolerance: Int = 0, _ message: @autoclosure () -> String = "",
                     file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertLessThanOrEqual(actual.distance(to: expected), tolerance,
                             "got \(actual), expected \(expected) ±\(tolerance) \(message())", file: file, line: line)
}

/// Asserts a buffer is a 3-band tile of exactly `width` x `height`.
func XCTAssertTile(_ pixels: PixelBuffer, width: Int, height: Int, _ message: @autoclosure () -> String = "",
                   file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(pixels.width, width, "width \(message())", file: file, line: line)
    XCTAssertEqual(pixels.height, height, "height \(message())", file: file, line: line)
    XCTAssertEqual(pixels.bands, 3, "bands \(message())", file: file, line: line)
    XCTAssertEqual(pixels.byteCount, width * height * 3, "8-bit samples \(message())", file: file, line: line)
}

/// A GIF89a with one frame per colour, each `width` x `height` of that one
/// colour. libvips' `gifsave` cannot be told to write pages from the
/// command line, so the bytes are made here: LZW with 8-bit codes and a
/// clear code every 100 codes, so the code size never grows.
func animatedGIF(width: Int, height: Int, frames: [RGB]) -> [UInt8] {
    precondition(frames.count <= 128)
    func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    var gif = Array("GIF89a".utf8) + le16(width) + le16(height)
    gif += [0xF6, 0, 0]  // global colour table of 128 entries
    var palette = [UInt8](repeating: 0, count: 128 * 3)
    for (index, colour) in frames.enumerated() {
        palette[index * 3] = colour.red
        palette[index * 3 + 1] = colour.green
        palette[index * 3 + 2] = colour.blue
    }
    gif += palette
    gif += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00]  // loop forever
    for index in frames.indices {
        gif += [0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00]  // 0.1 s per frame
        gif += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0x00]
        gif += [7]  // minimum code size: clear = 128, end = 129
        var codes: [UInt8] = []
        for pixel in 0..<(width * height) {
            if pixel % 100 == 0 { codes.append(128) }
            codes.append(UInt8(index))
        }
        codes.append(129)
        var start = 0
        while start < codes.count {
            let end = min(start + 255, codes.count)
            gif.append(UInt8(end - start))
            gif += codes[start..<end]
            start = end
        }
        gif.append(0)
    }
    gif.append(0x3B)
    return gif
}

/// A minimal one-page PDF with a filled rectangle, with a correct xref table.
func minimalPDF() -> [UInt8] {
    let content = "0 0 1 rg 0 0 60 40 re f\n"
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 60 40] /Contents 4 0 R >>",
        "<< /Length \(content.utf8.count) >>\nstream\n\(content)endstream",
    ]
    var text = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (index, object) in objects.enumerated() {
        offsets.append(text.utf8.count)
        text += "\(index + 1) 0 obj\n\(object)\nendobj\n"
    }
    let xref = text.utf8.count
    text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets {
        let digits = String(offset)
        text += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
    }
    text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return Array(text.utf8)
}

/// A PNG whose header claims `width` x `height` (RGB, 8-bit) followed by one
/// tiny IDAT: a "bomb" header with almost no data behind it.
func hugeHeaderPNG(width: UInt32, height: UInt32) -> [UInt8] {
    func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }
    // zlib stream of one stored block holding a single filter byte: enough to be an IDAT.
    let idat: [UInt8] = [0x78, 0x01, 0x01, 0x01, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x01]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        + chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
        + chunk("IDAT", idat)
        + chunk("IEND", [])
}
