import Foundation
import Glibc
import Vips
import XCTest

/// The contract, "Layouts and captions", through the built binary: cells by
/// colour, gaps and margins in the background, letterboxing, justified rows
/// of whole images, smart crop, and the options' usage errors.
final class LayoutOptionsTests: CLITestCase {
    private func writeColours(_ count: Int, width: Int = 160, height: Int = 120, folder: String = "in") -> [RGB] {
        makeFolder(folder)
        let colours = Array(palette.prefix(count))
        for (index, colour) in colours.enumerated() {
            writeImage(colour, to: "\(folder)/\(String(format: "%02d", index)).png", width: width, height: height)
        }
        return colours
    }

    private func placed(_ result: ProcessResult) -> [(path: String, rect: (x: Int, y: Int, w: Int, h: Int))] {
        events(jsonEvents(result), "placed").map {
            ($0["path"] as? String ?? "", ($0["x"] as? Int ?? -1, $0["y"] as? Int ?? -1,
                                            $0["width"] as? Int ?? -1, $0["height"] as? Int ?? -1))
        }
    }

    private func assertColour(_ picture: PixelBuffer, _ x: Int, _ y: Int, _ colour: RGB, _ what: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(picture.pixel(x: x, y: y).distance(to: colour), 24,
                                 "\(what) at (\(x),\(y)) is \(picture.pixel(x: x, y: y)), expected \(colour)",
                                 file: file, line: line)
    }

    func testTheAutoGridOfTwelveOnTwoCanvases() throws {
        let colours = writeColours(12)
        for (width, height, columns, rows) in [(2400, 1600, 4, 3), (1200, 1200, 3, 4)] {
            let result = try collage(["--max", "12", "--size", "\(width)x\(height)", "--json", "in", "-o", "g.png"])
            XCTAssertEqual(result.status, 0, result.summary)
            guard let picture = decoded("g.png") else { return }
            XCTAssertEqual(picture.width, width)
            XCTAssertEqual(picture.height, height)
            let cellW = (2 * width + columns) / (2 * columns), cellH = (2 * height + rows) / (2 * rows)
            for (index, colour) in colours.enumerated() {
                let x = (index % columns) * cellW + cellW / 2, y = (index / columns) * cellH + cellH / 2
                assertColour(picture, x, y, colour, "\(width)x\(height) cell \(index)")
            }
            let rects = placed(result).map(\.rect)
            XCTAssertEqual(rects.first.map { [$0.w, $0.h] }, [cellW, cellH], "a \(columns)x\(rows) grid")
        }
    }

    func testGapsAndMarginsAreBackground() throws {
        let colours = writeColours(6)
        for (width, height) in [(1200, 800), (900, 700)] {
            let gap = 12
            let result = try collage(["--layout", "grid", "--tile", "3x2", "--gap", "\(gap)", "--background", "black",
                                      "--size", "\(width)x\(height)", "in", "-o", "gap.png"])
            XCTAssertEqual(result.status, 0, result.summary)
            guard let picture = decoded("gap.png") else { return }
            let cellW = (2 * (width - 4 * gap) + 3) / 6, cellH = (2 * (height - 3 * gap) + 2) / 4
            for (index, colour) in colours.enumerated() {
                let x0 = gap + (index % 3) * (cellW + gap), y0 = gap + (index / 3) * (cellH + gap)
                assertColour(picture, x0 + cellW / 2, y0 + cellH / 2, colour, "cell \(index)")
                assertColour(picture, x0 + 1, y0 + 1, colour, "cell \(index)'s corner")
                assertColour(picture, x0 - gap / 2, y0 + cellH / 2, .black, "gap left of cell \(index)")
                assertColour(picture, x0 + cellW / 2, y0 - gap / 2, .black, "gap above cell \(index)")
            }
            assertColour(picture, width - gap / 2, height / 2, .black, "right margin")
            assertColour(picture, width / 2, height - gap / 2, .black, "bottom margin")
        }
    }

    func testSeedWithGapKeepsItsShape() throws {
        let colours = writeColours(3)
        let result = try collage(["--layout", "seed", "--gap", "20", "in", "-o", "seed.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        guard let picture = decoded("seed.png") else { return }
        // Three: 2 columns, 2 rows; cells of round((1200 - 60) / 2) = 570 by round((800 - 60) / 2) = 370.
        assertColour(picture, 20 + 285, 20 + 185, colours[0], "first cell")
        assertColour(picture, 20 + 570 + 20 + 285, 20 + 185, colours[1], "second cell")
        assertColour(picture, 20 + 285, 20 + 370 + 20 + 185, colours[2], "third cell")
        assertColour(picture, 10, 10, .white, "margin")
        assertColour(picture, 20 + 570 + 20 + 285, 20 + 370 + 20 + 185, .white, "the empty cell")
    }

    func testContainLetterboxesInTheBackground() throws {
        makeFolder("in")
        let red = RGB(red: 255, green: 0, blue: 0), blue = RGB(red: 0, green: 0, blue: 255)
        writeImage(red, to: "in/1-wide.png", width: 400, height: 200)
        writeImage(blue, to: "in/2-square.png", width: 300, height: 300)
        for (width, height) in [(800, 400), (1000, 700)] {
            let result = try collage(["--tile", "2x1", "--fit", "contain", "--background", "#00ff00",
                                      "--size", "\(width)x\(height)", "--json", "in", "-o", "fit.png"])
            XCTAssertEqual(result.status, 0, result.summary)
            guard let picture = decoded("fit.png") else { return }
            let green = RGB(red: 0, green: 255, blue: 0)
            let cellW = width / 2
            // 2:1 in a cellW x height cell: full width, bands above and below.
            let wideH = min(height, cellW / 2)
            assertColour(picture, cellW / 2, height / 2, red, "the wide image's centre")
            if wideH < height - 4 {
                assertColour(picture, cellW / 2, (height - wideH) / 4, green, "band above the wide image")
                assertColour(picture, cellW / 2, height - (height - wideH) / 4 - 1, green, "band below it")
            }
            let rects = placed(result).map(\.rect)
            XCTAssertEqual(rects.count, 2)
            if let wide = rects.first {
                XCTAssertEqual(Double(wide.w) / Double(wide.h), 2, accuracy: 0.02, "the whole image, 2:1")
                XCTAssertEqual(wide.y, (height - wide.h) / 2, "centred")
            }
            if let square = rects.last {
                XCTAssertEqual(square.w, square.h, "the whole square")
                assertColour(picture, square.x + square.w / 2, square.y + square.h / 2, blue, "the square")
            }
        }
    }

    /// Framed images (a 6-pixel border of their own colour around a grey
    /// inside): laid out in justified rows, each border shows on all four
    /// sides of the image's rectangle, so nothing was cropped.
    func testJustifiedShowsWholeImagesInRows() throws {
        makeFolder("in")
        let sizes = [(400, 300), (200, 300), (800, 200), (300, 300), (480, 270), (200, 300), (300, 200)]
        let grey = RGB(red: 128, green: 128, blue: 128)
        for (index, (w, h)) in sizes.enumerated() {
            let border = palette[index]
            let pixels = PixelBuffer(width: w, height: h) { x, y in
                x < 6 || y < 6 || x >= w - 6 || y >= h - 6 ? border : grey
            }
            write(try Encoder.encode(pixels, suffix: ".png").bytes, to: "in/\(index).png")
        }
        for (width, height, gap) in [(1200, 800, 10), (1600, 900, 0)] {
            let result = try collage(["--layout", "justified", "--allow-portrait", "--max", "7", "--gap", "\(gap)",
                                      "--size", "\(width)x\(height)", "--json", "in", "-o", "j.png"])
            XCTAssertEqual(result.status, 0, result.summary)
            guard let picture = decoded("j.png") else { return }
            let rects = placed(result)
            XCTAssertEqual(rects.map(\.path), sizes.indices.map { "in/\($0).png" }, "input order")
            var rows: [Int: [(x: Int, y: Int, w: Int, h: Int)]] = [:]
            for (index, (_, rect)) in rects.enumerated() {
                let aspect = Double(sizes[index].0) / Double(sizes[index].1)
                XCTAssertLessThanOrEqual(abs(Double(rect.h) - Double(rect.w) / aspect), 1, "image \(index)'s shape")
                let border = palette[index]
                for (x, y) in [(rect.x + 2, rect.y + rect.h / 2), (rect.x + rect.w - 3, rect.y + rect.h / 2),
                               (rect.x + rect.w / 2, rect.y + 2), (rect.x + rect.w / 2, rect.y + rect.h - 3)] {
                    assertColour(picture, x, y, border, "image \(index)'s border, uncropped")
                }
                rows[rect.y, default: []].append(rect)
            }
            for (_, row) in rows {
                XCTAssertEqual(row.first!.x, gap, "a row starts at the margin")
                XCTAssertEqual(row.last!.x + row.last!.w, width - gap, "a row spans the width")
            }
            let all = rects.map(\.rect)
            for (i, a) in all.enumerated() {
                for b in all[(i + 1)...] {
                    let apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y
                    XCTAssertTrue(apart, "\(a) and \(b) overlap")
                }
            }
        }
    }

    /// A wide grey image with a bright, busy patch near its right end: a
    /// square tile keeps the patch with attention, the grey middle with centre.
    func testAttentionKeepsTheSubjectThatCentreLoses() throws {
        makeFolder("in")
        let pixels = PixelBuffer(width: 1200, height: 300) { x, y in
            guard x > 1020 && x < 1180 && y > 70 && y < 230 else { return RGB(red: 120, green: 120, blue: 120) }
            return (x / 10 + y / 10) % 2 == 0 ? RGB(red: 255, green: 30, blue: 30) : RGB(red: 255, green: 220, blue: 0)
        }
        write(try Encoder.encode(pixels, suffix: ".png").bytes, to: "in/wide.png")
        func patchShare(_ crop: String) throws -> Double {
            let result = try collage(["--crop", crop, "--size", "300x300", "in", "-o", "\(crop).png"])
            XCTAssertEqual(result.status, 0, result.summary)
            guard let picture = decoded("\(crop).png") else { return -1 }
            var bright = 0
            for y in stride(from: 0, to: 300, by: 5) {
                for x in stride(from: 0, to: 300, by: 5) where picture.pixel(x: x, y: y).red > 200 { bright += 1 }
            }
            return Double(bright) / 3600
        }
        XCTAssertEqual(try patchShare("centre"), 0, "the centre holds only grey")
        XCTAssertGreaterThan(try patchShare("attention"), 0.1, "attention finds the patch")
        XCTAssertGreaterThan(try patchShare("center"), -1, "the American spelling is accepted")
    }

    func testChangingALayoutOptionRedoesTheCollage() throws {
        _ = writeColours(4)
        XCTAssertEqual(try collage(["--skip-unchanged", "--json", "in", "-o", "s.png"]).status, 0)
        let same = try collage(["--skip-unchanged", "--json", "in", "-o", "s.png"])
        XCTAssertEqual(events(jsonEvents(same), "unchanged").count, 1, "the same options: unchanged")
        for options in [["--gap", "4"], ["--layout", "grid"], ["--fit", "contain"], ["--crop", "entropy"],
                        ["--tile", "4x"], ["--label", "{name}"], ["--title", "{sheet}"], ["--layout", "justified"]] {
            let changed = try collage(["--skip-unchanged", "--json"] + options + ["in", "-o", "s.png"])
            XCTAssertEqual(events(jsonEvents(changed), "written").count, 1, "\(options) redoes it\n\(changed.summary)")
            let again = try collage(["--skip-unchanged", "--json"] + options + ["in", "-o", "s.png"])
            XCTAssertEqual(events(jsonEvents(again), "unchanged").count, 1, "\(options) again: unchanged")
        }
    }

    func testBadLayoutOptionsAreUsageErrors() throws {
        _ = writeColours(2)
        let cases: [([String], String)] = [
            (["--layout", "mosaic"], "--layout"), (["--crop", "middle"], "--crop"), (["--fit", "fill"], "--fit"),
            (["--tile", "0x3"], "--tile"), (["--tile", "ax2"], "--tile"), (["--tile", "x"], "--tile"),
            (["--tile", "3x2", "--layout", "seed"], "--tile"), (["--tile", "3x", "--layout", "justified"], "--tile"),
            (["--gap", "-1"], "--gap"), (["--gap", "500"], "--gap"), (["--layout", "justified", "--gap", "400"], "--gap"),
            (["--label", "{nope}"], "{nope}"), (["--label", "{name"], "--label"), (["--label", "a}b"], "--label"),
            (["--title", "{name}"], "{name}"), (["--max", "20", "--tile", "3x2"], "--max"),
        ]
        for (options, mention) in cases {
            let result = try collage(options + ["in", "-o", "bad.png"])
            assertFailure(result, status: 64, mentions: [mention])
            XCTAssertFalse(exists("bad.png"), "\(options): nothing written")
        }
    }
}
