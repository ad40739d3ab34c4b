import Foundation
import Glibc
import Vips
import XCTest

// What the print tests read a PDF with: Debian's poppler-utils, real
// consumers of PDFs (the test scripts install them).
extension CLITestCase {
    func requirePoppler() throws {
        for tool in ["pdfinfo", "pdftotext", "pdfimages", "pdftoppm"] where !haveProgram(tool) {
            throw XCTSkip("needs poppler-utils (\(tool)); scripts/test installs it")
        }
    }

    /// A poppler tool's standard output, which must succeed.
    func poppler(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try runProcess(arguments.map(b), directory: dir)
        XCTAssertEqual(result.status, 0, "\(arguments.joined(separator: " ")): \(result.stderrText)", file: file, line: line)
        return result.stdoutText
    }

    /// `pdfinfo`: the number of pages and the size of the first, in points.
    func pdfInfo(_ relative: String) throws -> (pages: Int, width: Double, height: Double) {
        let text = try poppler(["pdfinfo", relative])
        var pages = 0, width = 0.0, height = 0.0
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("Pages:"), let count = words.last.flatMap({ Int($0) }) { pages = count }
            if line.hasPrefix("Page size:"), words.count >= 5 {
                (width, height) = (Double(words[2]) ?? 0, Double(words[4]) ?? 0)
            }
        }
        return (pages, width, height)
    }

    /// `pdfimages -list`: each image's page, size, encoding and resolution.
    func pdfImages(_ relative: String) throws -> [(page: Int, width: Int, height: Int, encoding: String, ppi: (Int, Int))] {
        try poppler(["pdfimages", "-list", relative]).split(separator: "\n").dropFirst(2).compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 14, let page = Int(words[0]), let width = Int(words[3]), let height = Int(words[4]),
                  let x = Int(words[12]), let y = Int(words[13]) else { return nil }
            return (page, width, height, words[8], (x, y))
        }
    }

    /// `vipsheader -f xres`: the recorded resolution, in dots per inch.
    func recordedDPI(_ relative: String) throws -> Double {
        let result = try runProcess([b("vipsheader"), b("-f"), b("xres"), b(relative)], directory: dir)
        return (Double(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) * 25.4
    }

    /// The mean absolute difference of two pictures over `rect` (every band, 0-255).
    func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer, in rect: (x: Int, y: Int, width: Int, height: Int)) -> Double {
        var total = 0, count = 0
        for y in stride(from: rect.y, to: rect.y + rect.height, by: 2) {
            for x in stride(from: rect.x, to: rect.x + rect.width, by: 2) {
                let (p, q) = (a.pixel(x: x, y: y), b.pixel(x: x, y: y))
                total += abs(Int(p.red) - Int(q.red)) + abs(Int(p.green) - Int(q.green)) + abs(Int(p.blue) - Int(q.blue))
                count += 3
            }
        }
        return Double(total) / Double(max(1, count))
    }

    /// The placed rectangles of a run's `--json` events, in order.
    func placedRects(_ all: [[String: Any]]) -> [(x: Int, y: Int, width: Int, height: Int)] {
        events(all, "placed").map { ($0["x"] as? Int ?? -1, $0["y"] as? Int ?? -1, $0["width"] as? Int ?? -1,
                                     $0["height"] as? Int ?? -1) }
    }

    /// The six landscape samples under `in`, with short names (`p1.jpg` …) whose captions fit their cells.
    func printInputs(copies: Int = 1) {
        makeFolder("in")
        var number = 0
        for _ in 0..<copies {
            for sample in Package.landscapes {
                number += 1
                copySample(sample, to: "in/p\(number).jpg")
            }
        }
    }
}
