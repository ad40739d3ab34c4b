import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// What the tests of the async entry points share: a scratch folder, a
/// small run of three JPEGs, and a slow run of sheets to stop half-way.
class AsyncRunTestCase: XCTestCase {
    var folder: TemporaryDirectory!
    let colours = LayoutPipelineTests.colours

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// Three landscape JPEGs in `in/`, and a configuration of one 300x200 collage of them.
    func smallRun(output: String = "out.jpg") throws -> Configuration {
        try makeDirectory(folder("in"))
        for index in 0..<3 {
            try writeFlatImage(folder("in/\(index).jpg"), colours[index], width: 90, height: 60, suffix: ".jpg")
        }
        var configuration = Configuration(inputs: [.path(folder("in"))])
        configuration.size = CanvasSize("300x200")
        configuration.jobs = 2
        configuration.output = folder(output)
        return configuration
    }

    /// `count` copies (hard links) of one large noisy JPEG in `big/`: each
    /// takes a while to decode, so a run of sheets over them lasts long
    /// enough to be stopped half-way whatever the machine.
    func makeSlowInputs(count: Int = 32) throws -> PathName {
        let big = folder("big")
        try makeDirectory(big)
        var pixels = PixelBuffer(width: 2400, height: 1600, fill: .white)
        var seed: UInt32 = 12345
        let byteCount = pixels.byteCount
        pixels.withUnsafeMutablePixels { bytes in
            for offset in 0..<byteCount {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                bytes[offset] = UInt8(truncatingIfNeeded: seed >> 24)
            }
        }
        let first = folder("big/000.jpg")
        try writeFile(Encoder.encode(pixels, suffix: ".jpg[Q=95]").bytes, to: first)
        for index in 1..<count {
            let copy = folder(String(format: "big/%03d.jpg", index))
            let linked = first.withCString { from in copy.withCString { to in link(from!, to!) } }
            guard linked == 0 else { throw TestFailure("link \(copy): \(errnoText())") }
        }
        return big
    }

    /// Sheets of four of `inputs`, 600x400, into `out/`.
    func slowSheets(_ inputs: PathName) throws -> Configuration {
        try makeDirectory(folder("out"))
        var configuration = Configuration(inputs: [.path(inputs)])
        configuration.sheets = true
        configuration.max = 4
        configuration.size = CanvasSize("600x400")
        configuration.jobs = 2
        configuration.output = folder("out/sheet.jpg")
        return configuration
    }
}

/// An event's case, for comparing sequences of events.
func kind(_ event: PipelineEvent) -> String {
    switch event {
    case .accepted: "accepted"
    case .rejected: "rejected"
    case .failed: "failed"
    case .paired: "paired"
    case .passedOver: "passedOver"
    case .placed: "placed"
    case .written: "written"
    case .flagged: "flagged"
    case .planned: "planned"
    case .group: "group"
    case .unchanged: "unchanged"
    case .compared: "compared"
    case .approved: "approved"
    case .notice: "notice"
    case .document: "document"
    case .frame: "frame"
    case .picked: "picked"
    case .stacked: "stacked"
    case .pickTold: "pickTold"
    case .looked: "looked"
    case .finished: "finished"
    }
}
