import Media
import XCTest
@testable import CollageKit

/// What a film's sheet writes as text: its header's fields, its sheets'
/// names, and `--vtt`'s cues.
final class FilmTextTests: XCTestCase {
    func testHeaderFields() {
        let facts = FilmFacts(duration: 3723.4, width: 1920, height: 1080, frameRate: 29.97, codec: "h264",
                              bitRate: 2_410_400, audioCodec: "aac", audioChannels: 2)
        let header = FilmHeader(facts: facts, path: PathName("films/holiday.mp4"), bytes: 24_536_000)
        XCTAssertEqual(header.field("file"), "holiday.mp4")
        XCTAssertEqual(header.field("size"), "23.4 MiB")
        XCTAssertEqual(header.field("duration"), "1:02:03")
        XCTAssertEqual(header.field("resolution"), "1920x1080")
        XCTAssertEqual(header.field("fps"), "29.97")
        XCTAssertEqual(header.field("bitrate"), "2410 kb/s")
        XCTAssertEqual(header.field("audio"), "aac stereo")
        XCTAssertNil(header.field("sheet"))
        let silent = FilmFacts(duration: 2, width: 320, height: 240, frameRate: 25, codec: "hevc", bitRate: 0,
                               audioCodec: "", audioChannels: 0)
        let quiet = FilmHeader(facts: silent, path: PathName("a.mov"), bytes: 900)
        XCTAssertEqual(quiet.field("audio"), "no audio")
        XCTAssertEqual(quiet.field("fps"), "25")
        XCTAssertEqual(quiet.field("size"), "900 B")
        XCTAssertEqual(quiet.field("bitrate"), "?")
    }

    func testOutputsByStemAndNumber() {
        XCTAssertEqual(FilmOutputs.output(template: PathName("s/{stem}.jpg"), video: PathName("in/a.b.mp4"), number: 3),
                       PathName("s/a.b.jpg"))
        XCTAssertEqual(FilmOutputs.output(template: PathName("s/{n}.jpg"), video: PathName("in/a.mp4"), number: 3),
                       PathName("s/0003.jpg"))
        XCTAssertEqual(FilmOutputs.output(template: PathName("s/{stem}-{n}.jpg"), video: PathName("a.mp4"), number: 3,
                                          sheets: true), PathName("s/a-{n}.jpg"), "--every: {n} is the sheet's")
    }

    func testCuesRunToTheNextFrameAndPointAtTheirTiles() {
        var cues = FilmCues()
        cues.cues = [FilmCues.Cue(time: 10, sheet: PathName("thumbs/f-0001.jpg"), rect: TileRect(x: 320, y: 0, width: 320, height: 180)),
                     FilmCues.Cue(time: 0, sheet: PathName("thumbs/f-0001.jpg"), rect: TileRect(x: 0, y: 0, width: 320, height: 180)),
                     FilmCues.Cue(time: 3600, sheet: PathName("thumbs/f-0002.jpg"), rect: TileRect(x: 0, y: 0, width: 320, height: 180))]
        let text = String(decoding: cues.text(duration: 3605.5, at: PathName("thumbs/f.vtt")), as: UTF8.self)
        XCTAssertEqual(text, """
            WEBVTT

            00:00:00.000 --> 00:00:10.000
            f-0001.jpg#xywh=0,0,320,180

            00:00:10.000 --> 01:00:00.000
            f-0001.jpg#xywh=320,0,320,180

            01:00:00.000 --> 01:00:05.500
            f-0002.jpg#xywh=0,0,320,180

            """)
        // Relative to the VTT's folder, whatever the two paths are; percent-encoded.
        for (sheet, vtt, link) in [("thumbs/a.jpg", "cues/f.vtt", "../thumbs/a.jpg"), ("a.jpg", "f.vtt", "a.jpg"),
                                   ("/no/such/srv/a.jpg", "/no/such/srv/f.vtt", "a.jpg"),
                                   ("/no/such/srv/a.jpg", "/no/such/var/www/f.vtt", "../../srv/a.jpg"),
                                   ("/no/such/x/../sheets/my film #2.jpg", "/no/such/vtt/./deep/f.vtt",
                                    "../../sheets/my%20film%20%232.jpg")] {
            var cues = FilmCues()
            cues.cues = [FilmCues.Cue(time: 0, sheet: PathName(sheet), rect: TileRect(x: 0, y: 0, width: 1, height: 1))]
            let text = String(decoding: cues.text(duration: 1, at: PathName(vtt)), as: UTF8.self)
            XCTAssertTrue(text.contains("\n\(link)#xywh=0,0,1,1\n"), "\(sheet) from \(vtt): \(text)")
        }
        XCTAssertEqual(FilmCues.path(template: PathName("v/{stem}.vtt"), video: PathName("in/film.mkv")), PathName("v/film.vtt"))
    }
}
