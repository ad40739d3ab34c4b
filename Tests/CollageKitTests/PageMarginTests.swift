import XCTest
@testable import CollageKit
@testable import Vips

/// A page's margin is kept clear to the fraction of a pixel: cells are laid
/// out in the page's exact geometry and rounded inward, so that no image
/// pixel falls in the margin, whatever the layout, count, gap or fit.
final class PageMarginTests: XCTestCase {
    /// The run's configuration for `--page PAGE --dpi DPI`, as the command line makes it.
    private func configuration(page: String, dpi: Int, layout: String = "auto", gap: Int = 0,
                               fit: Fit = .cover) throws -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: [])
        configuration.print.page = try XCTUnwrap(PageSize(page))
        configuration.print.dpi = dpi
        (configuration.canvasWidth, configuration.canvasHeight) = configuration.print.page!.pixels(at: dpi)
        configuration.layoutName = layout
        configuration.layoutOptions.gap = gap
        configuration.layoutOptions.fit = fit
        return configuration
    }

    /// 210x297mm at 100 dpi is 827x1169 pixels, its 10 mm margin 39.37:
    /// three columns once put the last image at x 539, 250 wide, its right
    /// edge (789) 1.4 pixels into the margin (827 - 39.37 = 787.63).
    func testThreeColumnsStayInsideAFractionalMargin() throws {
        let configuration = try configuration(page: "210x297mm", dpi: 100)
        XCTAssertEqual(configuration.canvas, Canvas(width: 827, height: 1169))
        let margin = configuration.print.exactMarginPixels
        XCTAssertEqual(margin, 39.37, accuracy: 0.005)
        let shapes = Array(repeating: ImageShape(width: 1600, height: 1200), count: 6)
        let frames = configuration.layout.frames(for: shapes, on: configuration.canvas)
        XCTAssertEqual(frames.count, 6)
        let right = try XCTUnwrap(frames.map { $0.image.x + $0.image.width }.max())
        XCTAssertLessThanOrEqual(Double(right), 827 - margin, "the right edge, \(right), is outside the margin")
        XCTAssertEqual(right, 787)
        XCTAssertEqual(frames.map(\.image.x).min(), 40, "the left edge, rounded inward from 39.37")
        // No seam between cells: with no gap, each starts where the one before it ends.
        XCTAssertEqual(frames[0].image.x + frames[0].image.width, frames[1].image.x)
        XCTAssertEqual(frames[1].image.x + frames[1].image.width, frames[2].image.x)
    }

    /// Every layout, count, gap and fit on pages whose margins are fractional
    /// pixels: every image, caption and cell inside the exact margin.
    func testNoImagePixelFallsInTheMargin() throws {
        for (page, dpi) in [("210x297mm", 100), ("A4", 300), ("A5:landscape", 150), ("Letter", 96)] {
            for layout in ["auto", "seed", "grid", "justified"] {
                for gap in [0, 7] {
                    for fit in [Fit.cover, .contain] {
                        var configuration = try configuration(page: page, dpi: dpi, layout: layout, gap: gap, fit: fit)
                        configuration.captions.label = try Template("{name}", fields: Template.labelFields)
                        if gap > 0 { configuration.captions.title = try Template("Sheet {sheet}", fields: Template.titleFields) }
                        let margin = configuration.print.exactMarginPixels
                        let canvas = configuration.canvas
                        let inside = (left: margin, top: margin,
                                      right: Double(canvas.width) - margin, bottom: Double(canvas.height) - margin)
                        for count in 1...13 {
                            let shapes = (0..<count).map { ImageShape(width: 1000 + 137 * $0, height: 700 + 91 * ($0 % 5)) }
                            for frame in configuration.layout.frames(for: shapes, on: canvas) {
                                for rect in [frame.image, frame.cell] + (frame.caption.map { [$0] } ?? []) {
                                    let what = "\(rect) of \(count) on \(page) at \(dpi) dpi, \(layout), gap \(gap), \(fit)"
                                    XCTAssertGreaterThanOrEqual(Double(rect.x), inside.left, what)
                                    XCTAssertGreaterThanOrEqual(Double(rect.y), inside.top, what)
                                    XCTAssertLessThanOrEqual(Double(rect.x + rect.width), inside.right, what)
                                    XCTAssertLessThanOrEqual(Double(rect.y + rect.height), inside.bottom, what)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Off a page, a margin stays whole pixels and the cells as they were.
    func testWithoutAPageCellsAreAsTheyWere() throws {
        var configuration = CollageConfiguration(inputs: [])
        (configuration.canvasWidth, configuration.canvasHeight) = (749, 500)
        configuration.print.margin = PrintLength("12px")
        (configuration.layoutName, configuration.layoutOptions.columns, configuration.layoutOptions.rows) = ("grid", 3, 1)
        XCTAssertNil(configuration.layout.options.pageMargin)
        let frames = configuration.layout.frames(for: Array(repeating: ImageShape(width: 4, height: 3), count: 3),
                                                 on: configuration.canvas)
        // round((749 - 24) / 3) = 242 a cell, at 12, 254, 496: the last a pixel past 737, as ever.
        XCTAssertEqual(frames.map(\.image), [TileRect(x: 12, y: 12, width: 242, height: 476),
                                             TileRect(x: 254, y: 12, width: 242, height: 476),
                                             TileRect(x: 496, y: 12, width: 242, height: 476)])
    }
}
