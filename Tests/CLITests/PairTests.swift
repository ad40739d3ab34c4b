import CollageTestSupport
import Foundation
import Glibc
import Vips
import XCTest

/// "Pairs are one photo": a RAW and a JPEG, HEIC or HEIF of the same stem
/// in the same folder (any case) are one shot, shown by the still, the RAW
/// `paired`; a Live Photo's movie likewise under --video. A pair counts
/// once for --max and {index}. On standard input, files of one folder named
/// one after another pair the same way. A still that cannot be read leaves
/// its place to the RAW. A RAW that is read is a real DNG (its preview a
/// flat colour of the palette, as large as any tile); a paired RAW is never
/// read, so junk bytes named as a RAW serve there.
final class PairTests: CLITestCase {
    private let junk = b("not really a raw file")

    private func run(_ arguments: [String], stdin: [UInt8]? = nil, status: Int32 = 0,
                     file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let result = try collage(arguments + ["--json"], stdin: stdin)
        XCTAssertEqual(result.status, status, result.summary, file: file, line: line)
        return assertValidEventStream(result, arguments.joined(separator: " "), file: file, line: line)
    }

    private func pairs(_ all: [[String: Any]]) -> [[String]] {
        events(all, "paired").map { [$0["path"] as? String ?? "", $0["with"] as? String ?? ""] }
    }

    private func images(_ all: [[String: Any]]) -> [String] {
        events(all, "written").flatMap { $0["images"] as? [String] ?? [] }
    }

    /// A real DNG: a small Bayer mosaic, and an embedded JPEG preview of
    /// `colour` at 1200x900, so that every tile here comes from the preview
    /// (displayed at the raw data's 64x48, as the JPEGs here are).
    private func writeRaw(_ colour: RGB, to relative: String) {
        var dng = DNGFile()
        (dng.width, dng.height, dng.colour) = (64, 48, colour)
        dng.preview = image(colour, width: 1200, height: 900, suffix: ".jpg")
        write(dng.bytes, to: relative)
    }

    private func sources(_ all: [[String: Any]]) -> [String: String] {
        events(all, "placed").reduce(into: [:]) { $0[$1["path"] as? String ?? ""] = $1["source"] as? String }
    }

    func testARawBesideItsStillIsOneShot() throws {
        makeFolder("card")
        write(junk, to: "card/IMG_0001.CR2")
        writeImage(palette[0], to: "card/IMG_0001.JPG", suffix: ".jpg")
        writeImage(palette[1], to: "card/img_0002.jpg", suffix: ".jpg")
        write(junk, to: "card/IMG_0002.NEF")
        writeRaw(palette[2], to: "card/IMG_0003.DNG")  // a RAW alone is a photo of its own
        let all = try run(["card", "--label", "{index} {name}", "-o", "out.png"])
        XCTAssertEqual(images(all), ["card/IMG_0001.JPG", "card/IMG_0003.DNG", "card/img_0002.jpg"])
        XCTAssertEqual(pairs(all), [["card/IMG_0001.CR2", "card/IMG_0001.JPG"], ["card/IMG_0002.NEF", "card/img_0002.jpg"]])
        XCTAssertEqual(events(all, "placed").map { $0["label"] as? String },
                       ["1 IMG_0001.JPG", "2 IMG_0003.DNG", "3 img_0002.jpg"], "{index} counts a pair once")
        XCTAssertEqual(events(all, "failed").count + events(all, "rejected").count, 0, "the paired RAWs are never read")
        XCTAssertEqual(all.last?["paired"] as? Int, 2)
        XCTAssertEqual(sources(all)["card/IMG_0003.DNG"], "preview", "read as a RAW, by its preview")
        _ = try run(["card", "-o", "plain.png"])
        guard let picture = decoded("plain.png") else { return }
        assertTiles(picture, [palette[0], palette[2], palette[1]])
    }

    func testPairsCountOnceForTheCap() throws {
        makeFolder("card")
        for index in 0..<4 {
            write(junk, to: "card/IMG_\(index).ARW")
            writeImage(palette[index], to: "card/IMG_\(index).jpg", suffix: ".jpg")
        }
        let all = try run(["card", "--max", "3", "-o", "out.png"])
        XCTAssertEqual(images(all), ["card/IMG_0.jpg", "card/IMG_1.jpg", "card/IMG_2.jpg"])
        guard let picture = decoded("out.png") else { return }
        assertTiles(picture, Array(palette[0..<3]))
        let sheets = try run(["card", "--sheets", "--max", "2", "-o", "s.png"])
        XCTAssertEqual(events(sheets, "written").map { ($0["images"] as? [String])?.count }, [2, 2])
    }

    func testALivePhotoMovieGoesWithItsStillUnderVideo() throws {
        makeFolder("roll")
        writeImage(palette[0], to: "roll/IMG_0002.JPG", suffix: ".jpg")
        write(junk, to: "roll/IMG_0002.MOV")
        writeImage(palette[1], to: "roll/IMG_0003.jpeg", suffix: ".jpg")
        let withVideo = try run(["roll", "--video", "-o", "v.png"])
        XCTAssertEqual(images(withVideo), ["roll/IMG_0002.JPG", "roll/IMG_0003.jpeg"])
        XCTAssertEqual(pairs(withVideo), [["roll/IMG_0002.MOV", "roll/IMG_0002.JPG"]])
        let without = try run(["roll", "-o", "p.png"])
        XCTAssertEqual(pairs(without), [], "without --video the movie is a video, passed over")
        XCTAssertEqual((without.last?["passed_over"] as? [String: Int])?["video"], 1)
    }

    func testRawSkipLeavesRawFilesOut() throws {
        makeFolder("card")
        write(junk, to: "card/IMG_0001.CR2")
        writeImage(palette[0], to: "card/IMG_0001.JPG", suffix: ".jpg")
        writeRaw(palette[1], to: "card/IMG_0002.DNG")
        let all = try run(["card", "--raw", "skip", "-o", "out.png"])
        XCTAssertEqual(images(all), ["card/IMG_0001.JPG"])
        XCTAssertEqual(pairs(all), [])
        XCTAssertEqual((all.last?["passed_over"] as? [String: Int])?["raw"], 2)
        let listed = try run(["-", "--raw", "skip", "-o", "l.png"], stdin: b("card/IMG_0002.DNG\ncard/IMG_0001.JPG\n"))
        XCTAssertEqual(images(listed), ["card/IMG_0001.JPG"])
        assertFailure(try collage(["card", "--raw", "half", "-o", "x.png"]), status: 64, mentions: ["--raw", "half"])
    }

    /// Standard input: consecutive paths of one folder pair; a pair split by
    /// a path of another folder does not (that would take the whole list).
    func testPairsOnStandardInput() throws {
        makeFolder("a")
        makeFolder("b")
        writeImage(palette[0], to: "a/IMG_1.JPG", suffix: ".jpg")
        write(junk, to: "a/IMG_1.CR2")
        writeImage(palette[1], to: "a/IMG_2.JPG", suffix: ".jpg")
        writeRaw(palette[2], to: "a/IMG_2.DNG")
        writeImage(palette[3], to: "b/IMG_3.jpg", suffix: ".jpg")
        let list = b("a/IMG_1.CR2\na/IMG_1.JPG\na/IMG_2.JPG\nb/IMG_3.jpg\na/IMG_2.DNG\n")
        let all = try run(["-", "-o", "out.png"], stdin: list)
        XCTAssertEqual(pairs(all), [["a/IMG_1.CR2", "a/IMG_1.JPG"]])
        XCTAssertEqual(images(all), ["a/IMG_1.JPG", "a/IMG_2.JPG", "b/IMG_3.jpg", "a/IMG_2.DNG"])
        XCTAssertEqual(sources(all)["a/IMG_2.DNG"], "preview", "split from its still: a photo of its own")
        let nul = try run(["-0", "-", "-o", "nul.png"], stdin: b("a/IMG_2.DNG\0a/IMG_2.JPG\0"))
        XCTAssertEqual(pairs(nul), [["a/IMG_2.DNG", "a/IMG_2.JPG"]])
        let named = try run(["a/IMG_1.JPG", "a/IMG_1.CR2", "-o", "named.png"])
        XCTAssertEqual(pairs(named), [["a/IMG_1.CR2", "a/IMG_1.JPG"]], "files named one after another too")
    }

    /// A still that cannot be read (empty, or corrupt past its header) leaves
    /// its place to its RAW, shown in its tile, with a notice saying so.
    func testTheRawStandsInForAStillThatCannotBeRead() throws {
        makeFolder("card")
        write([], to: "card/IMG_0001.JPG")
        writeRaw(palette[0], to: "card/IMG_0001.DNG")
        let noise = try noisyJPEG(width: 300, height: 200, bands: 3)
        write(Array(noise.prefix(noise.count / 2)), to: "card/IMG_0002.JPG")
        writeRaw(palette[1], to: "card/IMG_0002.DNG")
        writeImage(palette[2], to: "card/IMG_0003.JPG", suffix: ".jpg")
        let result = try collage(["card", "-o", "out.png", "--json"])
        XCTAssertEqual(result.status, 0, "the shots were shown: nothing failed\n\(result.summary)")
        let all = assertValidEventStream(result, "stand-ins")
        XCTAssertEqual(images(all), ["card/IMG_0001.DNG", "card/IMG_0002.DNG", "card/IMG_0003.JPG"])
        XCTAssertEqual(sources(all)["card/IMG_0001.DNG"], "preview")
        let notices = events(all, "notice").compactMap { $0["message"] as? String }
        for (still, raw) in [("card/IMG_0001.JPG", "card/IMG_0001.DNG"), ("card/IMG_0002.JPG", "card/IMG_0002.DNG")] {
            XCTAssertTrue(notices.contains { $0.hasPrefix(still + ": ") && $0.contains(raw) }, "\(still): \(notices)")
        }
        guard let picture = decoded("out.png") else { return }
        assertTiles(picture, Array(palette[0..<3]))
        XCTAssertEqual(try collage(["card", "-o", "quiet.png"]).stderr, [], "told, not warned: the run ended well")
    }
}
