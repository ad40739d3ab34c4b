import CollageTestSupport
import Foundation
import Vips
import XCTest

/// Every phone's and camera's HEIF through the binary: a 200 MP grid (as a
/// Galaxy S24 Ultra writes it: 16320x12240, 32x24 tiles of 512) and a
/// 48 MP one (an iPhone's 8064x6048) placed, not `too-large`, the run
/// within the 160 MiB every run promises (VmHWM of the child, never a
/// clock); `.hif` files found in a folder.
final class PhoneHEICTests: CLITestCase {
    private func grid(_ width: Int, _ height: Int, _ name: String) throws {
        try GridHEIF(width: width, height: height).write(from: Package.samples + "/raindrops.jpg", to: path(name),
                                                         scratch: dir)
    }

    func testTwoHundredAndFortyEightMegapixelGridsArePlacedWithin160MiB() throws {
        makeFolder("roll")
        try grid(16320, 12240, "roll/a-200mp.heic")
        try grid(8064, 6048, "roll/b-48mp.heic")
        let run = try measuredCollage(["roll", "--json", "--size", "1200x600", "-o", "sheet.jpg"], timeout: 600)
        XCTAssertEqual(run.result.status, 0, run.result.summary)
        let all = assertValidEventStream(run.result, "phone grids")
        XCTAssertEqual(Set(events(all, "placed").compactMap { $0["path"] as? String }),
                       ["roll/a-200mp.heic", "roll/b-48mp.heic"])
        XCTAssertEqual(events(all, "rejected").count, 0, run.result.summary)
        print("200 MP + 48 MP grids: peak \(Int(run.maxRSSMegabytes)) MB")
        XCTAssertLessThan(run.maxRSSMegabytes, 160, "within the memory every run promises")
        guard let sheet = decoded("sheet.jpg"), let placed = events(all, "placed").first else { return }
        // Raindrops is a dark-blue photo: no tile is black or grey.
        let centre = sheet.pixel(x: (placed["x"] as! Int) + (placed["width"] as! Int) / 2,
                                 y: (placed["y"] as! Int) + (placed["height"] as! Int) / 2)
        XCTAssertGreaterThan(Int(centre.blue) + Int(centre.green) + Int(centre.red), 30, "\(centre)")
    }

    /// A 48 MP grid with an alpha plane of the same grid, beside the
    /// opaque 48 MP one: both placed (the alpha one flattened onto the
    /// sheet's background) within the 160 MiB, where a whole decode of the
    /// alpha grid alone would hold 186 MiB of RGBA.
    func testA48MegapixelGridWithAlphaIsPlacedWithin160MiB() throws {
        makeFolder("roll")
        var alpha = GridHEIF(width: 8064, height: 6048)
        alpha.alpha = true
        try alpha.write(from: Package.samples + "/raindrops.jpg", to: path("roll/a-alpha.heic"), scratch: dir)
        try grid(8064, 6048, "roll/b-48mp.heic")
        let run = try measuredCollage(["roll", "--json", "--size", "1200x600", "-o", "sheet.jpg"], timeout: 600)
        XCTAssertEqual(run.result.status, 0, run.result.summary)
        let all = assertValidEventStream(run.result, "an alpha grid")
        XCTAssertEqual(Set(events(all, "placed").compactMap { $0["path"] as? String }), ["roll/a-alpha.heic", "roll/b-48mp.heic"])
        print("48 MP grid with alpha + 48 MP grid: peak \(Int(run.maxRSSMegabytes)) MB")
        XCTAssertLessThan(run.maxRSSMegabytes, 160, "within the memory every run promises")
    }

    /// A 48 MP AVIF grid (AV1 tiles) placed by the binary within the 160
    /// MiB, decoded tile by tile (libheif's whole decode was `too-large`).
    func testA48MegapixelAVIFGridIsPlacedWithin160MiB() throws {
        makeFolder("roll")
        var avif = GridHEIF(width: 8064, height: 6048)
        avif.codec = "av1"
        try avif.write(from: Package.samples + "/raindrops.jpg", to: path("roll/a-48mp.avif"), scratch: dir)
        let run = try measuredCollage(["roll", "--json", "--size", "1200x600", "-o", "sheet.jpg"], timeout: 600)
        XCTAssertEqual(run.result.status, 0, run.result.summary)
        let all = assertValidEventStream(run.result, "an AVIF grid")
        XCTAssertEqual(events(all, "placed").compactMap { $0["path"] as? String }, ["roll/a-48mp.avif"])
        print("48 MP AVIF grid: peak \(Int(run.maxRSSMegabytes)) MB")
        XCTAssertLessThan(run.maxRSSMegabytes, 160, "within the memory every run promises")
    }

    /// A camera's `.HIF` in a folder is considered, as `.heic` is.
    func testHIFFilesInAFolderAreConsidered() throws {
        makeFolder("card")
        var camera = GridHEIF(width: 1024, height: 512)
        camera.bits = 10
        camera.chroma = "422"
        try camera.write(from: Package.samples + "/raindrops.jpg", to: path("card/DSC00001.HIF"), scratch: dir)
        let result = try collage(["card", "--json", "--size", "400x200", "-o", "card.jpg"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "a .HIF card")
        XCTAssertEqual(events(all, "placed").compactMap { $0["path"] as? String }, ["card/DSC00001.HIF"])
    }
}
