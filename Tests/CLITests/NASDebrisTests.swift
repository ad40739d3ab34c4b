import Foundation
import Glibc
import Vips
import XCTest

/// "Camera rolls": the debris of a NAS or an OS is never a photo. A
/// Synology album has an `@eaDir/NAME/` folder of thumbnails beside each
/// photo, which sorts first ('@' before 'I'): the collage shows the
/// originals, `--per-folder` writes one collage per real folder, and the
/// thumbnails' folders are never opened. A path named on the command line
/// is still tried.
final class NASDebrisTests: CLITestCase {
    /// in/album: IMG_0001.JPG to IMG_0004.JPG (red, green, blue, yellow) and
    /// Synology's thumbnails of each (magenta), a #recycle with a deleted photo
    /// (cyan), Thumbs.db, desktop.ini and a loose SYNOPHOTO_THUMB file.
    private func makeSynologyAlbum(_ root: String = "album") {
        makeFolder(root)
        makeFolder(root + "/@eaDir")
        for index in 1...4 {
            let name = "IMG_000\(index).JPG"
            writeImage(palette[index - 1], to: "\(root)/\(name)", width: 96, height: 64, suffix: ".jpg")
            makeFolder("\(root)/@eaDir/\(name)")
            for size in ["XL", "B", "M", "S", "SM"] {
                writeImage(palette[5], to: "\(root)/@eaDir/\(name)/SYNOPHOTO_THUMB_\(size).jpg", width: 96, height: 64,
                           suffix: ".jpg")
            }
        }
        makeFolder(root + "/#recycle")
        writeImage(palette[4], to: root + "/#recycle/IMG_0000.JPG", width: 96, height: 64, suffix: ".jpg")
        writeImage(palette[5], to: root + "/SYNOPHOTO_THUMB_XL.jpg", width: 96, height: 64, suffix: ".jpg")
        write(b("thumbnail cache"), to: root + "/Thumbs.db")
        write(b("[.ShellClassInfo]\n"), to: root + "/desktop.ini")
    }

    func testTheCollageShowsTheOriginalsNotTheNASThumbnails() throws {
        makeSynologyAlbum()
        let result = try collage(["album", "-o", "out.png", "--json"])
        XCTAssertEqual(result.status, 0, result.summary)
        let all = assertValidEventStream(result, "a Synology album")
        XCTAssertEqual(events(all, "written").first?["images"] as? [String],
                       (1...4).map { "album/IMG_000\($0).JPG" })
        XCTAssertEqual(events(all, "accepted").count, 4, "nothing else was even looked at")
        guard let picture = decoded("out.png") else { return }
        assertTiles(picture, Array(palette[0..<4]))
        XCTAssertEqual(result.stderr, [])
    }

    func testPerFolderWritesOneCollagePerRealFolder() throws {
        makeFolder("Photos")
        makeSynologyAlbum("Photos/2024")
        makeSynologyAlbum("Photos/2025")
        makeFolder("out")
        let result = try collage(["--per-folder", "Photos", "-o", "out/{path}.png"])
        assertSuccess(result, stdout: "out/2024.png\nout/2025.png\n")
        XCTAssertEqual(listingText("out"), ["2024.png", "2025.png"])
        guard let picture = decoded("out/2025.png") else { return }
        assertTiles(picture, Array(palette[0..<4]))
    }

    func testDebrisFoldersOfEveryKindAreNotEntered() throws {
        makeFolder("in")
        let debris = ["#recycle", "#snapshot", "@Recycle", "@Recently-Snapshot", "$RECYCLE.BIN",
                      "System Volume Information", "lost+found", "@eaDir"]
        for folder in debris {
            makeFolder("in/" + folder)
            writeImage(palette[5], to: "in/\(folder)/a.png")
        }
        writeImage(palette[0], to: "in/photo.png")
        let result = try collage(["in", "--sheets", "-o", "s.png", "--json"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(events(jsonEvents(result), "accepted").map { $0["path"] as? String }, ["in/photo.png"])
    }

    /// strace shows what the walk opens: the album, never `@eaDir` or
    /// `#recycle` nor anything below them (opendir is an openat).
    func testASkippedFolderIsNeverOpened() throws {
        guard haveProgram("strace") else { throw XCTSkip("strace is not installed") }
        makeSynologyAlbum()
        makeFolder("album/sub")
        writeImage(palette[6], to: "album/sub/x.png")
        let log = path("strace.log")
        let result = try runProcess([b("strace"), b("-f"), b("-e"), b("trace=openat,open"), b("-o"), b(log)]
                                    + command([b("album"), b("--sheets"), b("-o"), b("s.png")]), directory: dir)
        XCTAssertEqual(result.status, 0, result.summary)
        let opened = String(decoding: contents(b(log)) ?? [], as: UTF8.self).split(separator: "\n")
            .filter { $0.contains("openat(") || $0.contains("open(") }
        XCTAssertTrue(opened.contains { $0.contains("\"album\"") }, "the album is opened:\n" + opened.joined(separator: "\n"))
        XCTAssertTrue(opened.contains { $0.contains("\"album/sub\"") }, "and its real folder")
        let debris = opened.filter { $0.contains("@eaDir") || $0.contains("#recycle") || $0.contains("SYNOPHOTO")
            || $0.contains("Thumbs.db") || $0.contains("desktop.ini") }
        XCTAssertEqual(debris, [], "no debris is opened")
    }

    /// A thumbnail named on the command line, or on standard input, is tried
    /// like any file a person names.
    func testADebrisPathNamedByAPersonIsStillTried() throws {
        makeSynologyAlbum()
        let thumbnail = "album/@eaDir/IMG_0001.JPG/SYNOPHOTO_THUMB_XL.jpg"
        let named = try collage([thumbnail, "-o", "named.png"])
        assertSuccess(named, stdout: "named.png\n")
        let listed = try collage(["-", "-o", "listed.png", "--json"], stdin: b(thumbnail + "\nalbum/#recycle/IMG_0000.JPG\n"))
        XCTAssertEqual(listed.status, 0, listed.summary)
        XCTAssertEqual(events(jsonEvents(listed), "written").first?["images"] as? [String],
                       [thumbnail, "album/#recycle/IMG_0000.JPG"])
        let walked = try collage(["album/#recycle", "-o", "walked.png"])
        assertSuccess(walked, stdout: "walked.png\n")
    }
}
