import FileFacts
import XCTest
@testable import CollageKit
@testable import Vips

/// `--exclude` patterns on the bytes of a path below the INPUT: `*` stays
/// within a name, `**` crosses folders, `**/` also matches none, a trailing
/// `/` is for folders, bytes that are not UTF-8 match as they are; bad
/// patterns say what is wrong.
final class ExcludePatternTests: XCTestCase {
    private func matches(_ pattern: String, _ path: String, folder: Bool = false,
                         file: StaticString = #filePath, line: UInt = #line) -> Bool {
        do { return try ExcludePattern(Array(pattern.utf8)).matches(Array(path.utf8)[...], folder: folder) } catch {
            XCTFail("'\(pattern)': \(error)", file: file, line: line)
            return false
        }
    }

    func testStarStaysWithinAName() {
        XCTAssertTrue(matches("*.tmp", "a.tmp"))
        XCTAssertFalse(matches("*.tmp", "sub/a.tmp"), "the whole path is matched: * does not cross a '/'")
        XCTAssertTrue(matches("sub/*.tmp", "sub/a.tmp"))
        XCTAssertTrue(matches("IMG_*", "IMG_"), "* may be empty")
        XCTAssertFalse(matches("a*b", "a/b"))
        XCTAssertTrue(matches("*/*", "x/y"))
        XCTAssertFalse(matches("*", "x/y"))
    }

    func testDoubleStarCrossesFolders() {
        XCTAssertTrue(matches("**/*.tmp", "a.tmp"), "**/ matches no folder too")
        XCTAssertTrue(matches("**/*.tmp", "a/b/c.tmp"))
        XCTAssertTrue(matches("2024/**", "2024/a/b.jpg"))
        XCTAssertFalse(matches("2024/**", "2023/a.jpg"))
        XCTAssertTrue(matches("a/**/z", "a/z"))
        XCTAssertTrue(matches("a/**/z", "a/b/c/z"))
        XCTAssertFalse(matches("a/**/z", "a/bz"))
        XCTAssertTrue(matches("**tmp**", "x/tmp/y"))
        XCTAssertTrue(matches("**/Screenshots/", "2024/Screenshots", folder: true))
    }

    func testQuestionMarkSetsAndEscapes() {
        XCTAssertTrue(matches("IMG_00?.jpg", "IMG_001.jpg"))
        XCTAssertFalse(matches("a?b", "a/b"))
        XCTAssertTrue(matches("[a-c]x", "bx"))
        XCTAssertFalse(matches("[!a-c]x", "bx"))
        XCTAssertTrue(matches("[^a-c]x", "dx"))
        XCTAssertTrue(matches("[]]", "]"))
        XCTAssertTrue(matches("\\*", "*"))
        XCTAssertFalse(matches("\\*", "a"))
        XCTAssertTrue(matches("a\\[1]", "a[1]"))
    }

    func testFoldersOnlyAndLeadingSlash() {
        XCTAssertTrue(matches("tmp/", "tmp", folder: true))
        XCTAssertFalse(matches("tmp/", "tmp", folder: false), "a trailing / is for folders")
        XCTAssertTrue(matches("tmp", "tmp", folder: true), "without it, anything of that name")
        XCTAssertTrue(matches("/tmp", "tmp"), "a leading / is the INPUT")
        XCTAssertTrue(matches("./tmp", "tmp"))
    }

    func testBytesThatAreNotUTF8() throws {
        let pattern = try ExcludePattern(Array("caf".utf8) + [0xE9] + Array("*".utf8))
        XCTAssertTrue(pattern.matches((Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))[...], folder: false))
        XCTAssertFalse(pattern.matches(Array("cafe.jpg".utf8)[...], folder: false))
        let star = try ExcludePattern(Array("*.jpg".utf8))
        XCTAssertTrue(star.matches(([0xFF, 0xFE] + Array(".jpg".utf8))[...], folder: false))
    }

    func testBadPatterns() {
        for bad in ["", "/", "a[", "a[b", "x\\", "***", "a/***/b", "[z-a]"] {
            XCTAssertThrowsError(try ExcludePattern(Array(bad.utf8)), "'\(bad)' is refused")
        }
    }

    func testPatternFile() throws {
        let text = "# photos we never want\n\n  \n*.tmp\r\n**/Screenshots/\n\\#odd\n"
        let patterns = try ScanRules.patterns(fromFile: Array(text.utf8))
        XCTAssertEqual(patterns.map(\.description), ["*.tmp", "**/Screenshots/", "\\#odd"])
        XCTAssertThrowsError(try ScanRules.patterns(fromFile: Array("ok\n[bad\n".utf8))) { error in
            XCTAssertTrue("\(error)".hasPrefix("line 2: '[bad'"), "\(error)")
        }
    }
}

/// The table of kinds, the debris names, and the pairs of one listing.
final class ShotPairsTests: XCTestCase {
    private func names(_ list: [String]) -> [[UInt8]] { list.map { Array($0.utf8) } }

    func testKindsByExtensionInAnyCase() {
        XCTAssertEqual(ScanRules.kind(of: Array("a.JPG".utf8)), .image)
        XCTAssertEqual(ScanRules.kind(of: Array("a.Cr2".utf8)), .raw)
        XCTAssertEqual(ScanRules.kind(of: Array("a.MOV".utf8)), .video)
        XCTAssertEqual(ScanRules.kind(of: Array("a.xmp".utf8)), .sidecar)
        XCTAssertEqual(ScanRules.kind(of: Array("a.txt".utf8)), .other)
        XCTAssertEqual(ScanRules.kind(of: Array(".jpg".utf8)), .other, "a dot name has no extension")
        for kind in [FileKind.raw, .video, .sidecar] {
            let extensions = kind == .raw ? FileKind.rawExtensions : kind == .video ? FileKind.videoExtensions
                : FileKind.sidecarExtensions
            XCTAssertTrue(extensions.isDisjoint(with: ImageFormat.inputExtensions), "\(kind) is not an image")
        }
    }

    func testDebrisInAnyCase() {
        for name in ["@eaDir", "#recycle", "#snapshot", "@Recycle", "@Recently-Snapshot", "$RECYCLE.BIN",
                     "$Recycle.Bin", "System Volume Information", "lost+found", "SYNOPHOTO_THUMB_XL.jpg",
                     "Thumbs.db", "desktop.ini"] {
            XCTAssertTrue(ScanRules.isDebris(Array(name.utf8)), name)
        }
        for name in ["eaDir", "recycle", "IMG_0001.JPG", "thumbs.jpg", "SYNOPHOTO.jpg"] {
            XCTAssertFalse(ScanRules.isDebris(Array(name.utf8)), name)
        }
    }

    func testRawAndMovieGoWithTheirStill() {
        var rules = ScanRules()
        rules.video = true
        let list = names(["IMG_0001.CR2", "IMG_0001.JPG", "IMG_0002.HEIC", "img_0002.mov", "IMG_0003.DNG",
                          "IMG_0004.jpg", "IMG_0004.heic", "IMG_0004.nef", "clip.mp4"])
        let pairs = ShotPairs(names: list, rules: rules)
        XCTAssertEqual(pairs.partners, [1: [0], 2: [3], 5: [7]],
                       "the first still in the order given takes the partners; a stem in any case")
        XCTAssertEqual(pairs.secondary, [0, 3, 7])
    }

    func testRawFirstAndNoPairsWithoutTheirKind() {
        var rules = ScanRules()
        rules.video = true
        let list = names(["A.MOV", "A.JPG", "A.DNG"])
        XCTAssertEqual(ShotPairs(names: list, rules: rules).partners, [1: [2, 0]], "the RAW stands in first")
        XCTAssertEqual(ShotPairs(names: list, rules: ScanRules()).partners, [1: [2]], "no movie without --video")
        rules.raw = .skip
        rules.video = false
        XCTAssertTrue(ShotPairs(names: list, rules: rules).partners.isEmpty, "--raw skip: nothing to pair")
        XCTAssertTrue(ShotPairs(names: list, rules: ScanRules(), folders: [Array("A.DNG".utf8)]).partners.isEmpty,
                      "a folder pairs with nothing")
    }

    func testConsecutiveNamedFilesOfOneFolder() {
        var shots = ConsecutiveShots(rules: ScanRules())
        for path in ["a/IMG_1.CR2", "a/IMG_1.JPG", "b/IMG_2.JPG", "a/IMG_2.CR2"] {
            shots.add(InputFile(path: PathName(path), explicit: true))
        }
        shots.flush()
        var out: [InputFile] = []
        while let file = shots.pop() { out.append(file) }
        XCTAssertEqual(out.map(\.path.description), ["a/IMG_1.JPG", "b/IMG_2.JPG", "a/IMG_2.CR2"],
                       "a pair split by another folder's path is not one")
        XCTAssertEqual(out.first?.partners, [PathName("a/IMG_1.CR2")])
    }
}
