import CollageTestSupport
import Foundation
import Vips
import XCTest

/// A film's sheet as people see it: cells of the film's shape as shown
/// (a 2.39:1 film, a phone's upright 9:16, an anamorphic DVD's 16:9 from
/// 720x576 samples), the sheet as tall as its rows unless `--size` gives
/// both sides; WebVTT cues that a player resolves from the VTT's own
/// folder, whatever `-o` and `--vtt` are; and the names of films' sheets.
final class FilmShapeTests: CLITestCase {
    /// The films' one colour: no background band may show inside a cell.
    static let fill = RGB(red: 0x20, green: 0x60, blue: 0xC0)
    /// The sheet's background, far from `fill` and from the white box.
    static let background = "#ff00ff"

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard haveProgram("ffmpeg") else { throw XCTSkip("needs ffmpeg") }
    }

    /// A 4-second film of `size`, one colour with a white box moving
    /// across (so that no frame is flat), encoded with `filters` after it
    /// (a sample aspect); `rotated`: remuxed with a quarter turn.
    private func film(_ relative: String, size: String, filters: String = "", rotated: Bool = false) throws {
        let made = rotated ? relative + ".unturned.mp4" : relative
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi",
                                     "-i", "color=c=0x2060C0:s=\(size):r=25:d=4",
                                     "-vf", "drawbox=x='mod(t*40,iw/2)':y=ih/4:w=iw/8:h=ih/4:c=white:t=fill"
                                        + (filters.isEmpty ? "" : "," + filters) + ",format=yuv420p",
                                     "-c:v", "libx264", path(made)])
        if rotated { try TestMedia.rotated(path(made), to: path(relative)) }
    }

    func testCellsTakeTheFilmsShapeAndTheSheetIsAsTallAsItsRows() throws {
        let films: [(name: String, size: String, filters: String, rotated: Bool, shape: Double)] = [
            ("scope.mp4", "478x200", "", false, 478.0 / 200),  // 2.39:1
            ("phone.mp4", "320x180", "", true, 9.0 / 16),  // upright by its display matrix
            ("dvd.mp4", "360x288", "setsar=64/45", false, 16.0 / 9),  // anamorphic samples
        ]
        for film in films {
            try self.film(film.name, size: film.size, filters: film.filters, rotated: film.rotated)
            for count in [4, 9] {
                let result = try collage([film.name, "--frames", "\(count)", "--background", Self.background, "--json",
                                          "-o", "sheet.png"])
                XCTAssertEqual(result.status, 0, result.summary)
                let all = assertValidEventStream(result, film.name)
                let written = try XCTUnwrap(events(all, "written").first)
                XCTAssertEqual(written["width"] as? Int, 1200, "\(film.name): 1200 wide by default")
                let picture = try XCTUnwrap(decoded("sheet.png"))
                let placed = events(all, "placed")
                XCTAssertEqual(placed.count, count)
                var bottom = 0
                for tile in placed {
                    let (x, y, w, h) = (tile["x"] as! Int, tile["y"] as! Int, tile["width"] as! Int, tile["height"] as! Int)
                    XCTAssertEqual(Double(w) / Double(h), film.shape, accuracy: 2.0 / Double(min(w, h)),
                                   "\(film.name) x\(count): the cell of the film's shape: \(w)x\(h)")
                    // The frame reaches each edge of its cell: no band of background inside it.
                    for (px, py) in [(x, y + h / 2), (x + w - 1, y + h / 2), (x + w / 2, y), (x + w / 2, y + h - 1)] {
                        let seen = picture.pixel(x: px, y: py)
                        XCTAssertGreaterThan(RGB(red: 255, green: 0, blue: 255).distance(to: seen), 100,
                                             "\(film.name) x\(count): background at \(px),\(py) inside \(w)x\(h)+\(x)+\(y)")
                    }
                    // Neighbours in a row touch: the cell is the frame's width.
                    if let right = placed.first(where: { ($0["y"] as! Int) == y && ($0["x"] as! Int) > x }) {
                        XCTAssertEqual(right["x"] as! Int, x + w, "\(film.name) x\(count): cells side by side")
                    }
                    bottom = max(bottom, y + h)
                }
                // As tall as its rows: below the last row, its caption band alone (the time, 0:01).
                let height = try XCTUnwrap(written["height"] as? Int)
                XCTAssertLessThan(height - bottom, max(40, height / 10), "\(film.name) x\(count): \(height) high, rows end at \(bottom)")
            }
        }
        // --size WxH is honoured exactly: the frames whole, centred in their cells.
        let result = try collage(["scope.mp4", "--frames", "4", "--size", "1000x700", "--json", "-o", "fixed.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        let written = try XCTUnwrap(events(assertValidEventStream(result, "fixed"), "written").first)
        XCTAssertEqual([written["width"] as? Int, written["height"] as? Int], [1000, 700])
        for tile in events(jsonEvents(result), "placed") {
            let (w, h) = (tile["width"] as! Int, tile["height"] as! Int)
            XCTAssertEqual(Double(w) / Double(h), 478.0 / 200, accuracy: 2.0 / Double(h), "whole: \(w)x\(h)")
        }
    }

    /// Every combination of `-o` and `--vtt`, absolute, relative, in other
    /// folders and through `..`: each cue's image, resolved against the
    /// VTT's own address as a player resolves it, is the sheet written.
    func testCuesPointAtTheSheetsFromTheVTTsOwnFolderWhateverTheirPaths() throws {
        try film("film.mp4", size: "160x90")
        for folder in ["out", "out/sheets", "out/cues", "out/cues/deep"] { makeFolder(folder) }
        let root = URL(fileURLWithPath: dir).resolvingSymlinksInPath().path
        let outputs = ["out/sheets/film-{n}.png", root + "/out/sheets/film-{n}.png", "out/cues/../sheets/film-{n}.png",
                       "out/cues/film-{n}.png"]
        let cues = ["out/cues/film.vtt", root + "/out/cues/film.vtt", "out/sheets/../cues/deep/film.vtt",
                    "out/sheets/film.vtt", "film.vtt"]
        for output in outputs {
            for vtt in cues {
                let result = try collage(["film.mp4", "--every", "1", "--max", "2", "--json", "-o", output, "--vtt", vtt])
                XCTAssertEqual(result.status, 0, "-o \(output) --vtt \(vtt): \(result.summary)")
                let written = Set(events(jsonEvents(result), "written").compactMap { $0["output"] as? String }.map {
                    URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: dir + "/")).standardizedFileURL
                        .resolvingSymlinksInPath().path
                })
                XCTAssertEqual(written.count, 2, "-o \(output): \(result.summary)")
                let vttURL = URL(fileURLWithPath: vtt, relativeTo: URL(fileURLWithPath: dir + "/"))
                let text = String(decoding: try XCTUnwrap(FileManager.default.contents(atPath: vttURL.path), vtt), as: UTF8.self)
                let images = text.components(separatedBy: "\n").filter { $0.contains("#xywh=") }
                XCTAssertEqual(images.count, 4, text)
                for image in images {
                    let reference = String(image.prefix { $0 != "#" })
                    XCTAssertFalse(reference.hasPrefix("/"), "-o \(output) --vtt \(vtt): a path from the root: \(reference)")
                    let resolved = try XCTUnwrap(URL(string: reference, relativeTo: vttURL), reference)
                        .standardizedFileURL.resolvingSymlinksInPath().path
                    XCTAssertTrue(written.contains(resolved),
                                  "-o \(output) --vtt \(vtt): \(reference) resolves to \(resolved), not one of \(written)")
                }
            }
        }
    }

    /// A film of five frames a second (a time-lapse, a screen recording):
    /// its last time falls after its last frame starts, which is the frame
    /// on screen then; a film of fewer frames than times gives each once,
    /// with a notice, and the run ends well.
    func testAFilmOfFewFramesASecondGivesEveryTimeAFrame() throws {
        for (name, seconds, distinct) in [("slow.mp4", 4, 12), ("tiny.mp4", 1, 4)] {
            try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=5:duration=\(seconds)",
                                         "-f", "lavfi", "-i", "sine=f=440:d=\(seconds)", "-c:v", "libx264",
                                         "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path(name)])
            let result = try collage([name, "--frames", "12", "--json", "-o", name + ".png"])
            XCTAssertEqual(result.status, 0, "\(name): \(result.summary)")
            let all = assertValidEventStream(result, name)
            let times = events(all, "frame").compactMap { $0["time"] as? Double }
            XCTAssertEqual(times.count, distinct, "\(name): \(times)")
            XCTAssertEqual(Set(times).count, times.count, "\(name): never one frame twice: \(times)")
            let notices = events(all, "notice").compactMap { $0["message"] as? String }
            XCTAssertEqual(notices.contains { $0.contains("distinct frame(s) for 12 times") }, distinct < 12, "\(notices)")
        }
    }

    func testTwoFilmsOfOneNameAreToldApartByTheFieldsThatDiffer() throws {
        makeFolder("films")
        try film("films/good.mp4", size: "160x90")
        try film("films/good.mkv", size: "160x90")
        makeFolder("sheets")
        let clash = try collage(["films", "--frames", "2", "--json", "-o", "sheets/{stem}.png"])
        XCTAssertEqual(clash.status, 65, clash.summary)
        let failed = events(jsonEvents(clash), "failed")
        XCTAssertEqual(failed.count, 1, clash.summary)
        let line = failed.first?["error"] as? String ?? ""
        XCTAssertTrue(line.contains("{stem}-{ext}") && line.contains("{name}"), line)
        XCTAssertFalse(line.contains("use {stem} or {n}"), "a hint the command already follows: \(line)")
        // {name} is accepted, and names each apart.
        let named = try collage(["films", "--frames", "2", "--json", "-o", "sheets/{name}.png"])
        XCTAssertEqual(named.status, 0, named.summary)
        XCTAssertEqual(events(jsonEvents(named), "written").compactMap { $0["output"] as? String }.sorted(),
                       ["sheets/good.mkv.png", "sheets/good.mp4.png"])
        let parts = try collage(["films", "--frames", "2", "--json", "-o", "sheets/{stem}-{ext}.png"])
        XCTAssertEqual(parts.status, 0, parts.summary)
        XCTAssertTrue(exists("sheets/good-mkv.png") && exists("sheets/good-mp4.png"))
        // One name in two folders: only the number tells them apart.
        makeFolder("a")
        makeFolder("b")
        try film("a/clip.mp4", size: "160x90")
        try film("b/clip.mp4", size: "160x90")
        let folders = try collage(["a", "b", "--frames", "2", "--json", "-o", "sheets/{name}.png"])
        XCTAssertEqual(folders.status, 65, folders.summary)
        let hint = events(jsonEvents(folders), "failed").first?["error"] as? String ?? ""
        XCTAssertTrue(hint.contains("{n}"), hint)
    }
}
