import Glibc
import XCTest
@testable import CollageKit

/// `--skip-unchanged` takes each input's stamp once, from the walk's own
/// `stat`: the state records it and the next run's check compares by it,
/// no file is stat'ed a second time.
final class InputStampTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder = nil }

    /// A walk that hands out the files it was given, stamps and all.
    private struct GivenWalk: PullSource {
        var files: ArraySlice<InputFile>
        mutating func next() -> InputFile? { files.popFirst() }
    }

    func testTheWalkStampsEachFileItFindsAsStatWould() throws {
        try writeFile(Array(repeating: 7, count: 123), to: folder("a.jpg"))
        try writeFile([1, 2], to: folder("b.png"))
        var walk = DirectoryWalk(root: folder.pathName, followLinks: false, report: { _ in })
        var found: [InputFile] = []
        while let file = walk.nextFile() { found.append(file) }
        XCTAssertEqual(found.map(\.path), [folder("a.jpg"), folder("b.png")])
        for file in found {
            XCTAssertNotNil(file.stamp, "\(file.path): the walk's stat is kept")
            XCTAssertEqual(file.stamp, FileStamp.of(file.path))
        }
        XCTAssertEqual(found.first?.stamp?.size, 123)
    }

    func testTheCheckComparesTheWalksStampsWithoutStatingAgain() throws {
        let output = folder("out.jpg")
        try writeFile([0xFF, 0xD8, 0xFF, 0xD9], to: output)
        var configuration = CollageConfiguration(inputs: [.path(folder.pathName)])
        configuration.output = output
        // Paths that do not exist: a check that stat'ed them would find no
        // stamp, and the recorded ones could not match.
        let files = (1...3).map { number in
            InputFile(path: folder("gone-\(number).jpg"), explicit: false,
                      stamp: FileStamp(size: Int64(number), modified: 1_000 * Int64(number)))
        }
        let state = RunState(options: RunState.options(of: configuration), complete: true,
                             outputs: [OutputRecord(path: output, stamp: FileStamp.of(output)!, images: [])],
                             inputs: files.map { InputRecord(path: $0.path, stamp: $0.stamp) })
        var walk = GivenWalk(files: files[...])
        XCTAssertTrue(state.matches(configuration, walking: &walk))

        // The stamps are what is compared: one that differs is a change.
        var changed = files
        changed[1].stamp = FileStamp(size: 2, modified: 2_001)
        var changedWalk = GivenWalk(files: changed[...])
        XCTAssertFalse(state.matches(configuration, walking: &changedWalk))
    }

    func testAnOpenedFilesStampIsTheOneItsOpeningTook() throws {
        let path = folder("a.jpg")
        try writeFile(Array(repeating: 1, count: 10), to: path)
        guard case .success(let file) = OpenFile.open(path) else { return XCTFail("not opened") }
        let opened = FileStamp.of(path)
        XCTAssertEqual(file.stamp, opened)
        try writeFile(Array(repeating: 2, count: 30), to: path)  // the same inode, written again
        XCTAssertEqual(FileStamp.of(path)?.size, 30)
        XCTAssertEqual(file.stamp, opened, "the stamp recorded is the opening's, not a second stat's")
    }

    func testADiffRecordsTheStampsItsWalksTook() throws {
        let (current, baseline) = (folder("current"), folder("baseline"))
        try makeDirectory(current)
        try makeDirectory(baseline)
        try writeFile(Array(repeating: 1, count: 10), to: current.appending(Array("a.png".utf8)))
        try writeFile(Array(repeating: 2, count: 20), to: baseline.appending(Array("a.png".utf8)))
        let pairing = DiffPairing(inputs: [.path(current)], baseline: baseline, followLinks: false,
                                  nulSeparated: false, rules: ScanRules())
        let walked = pairing.pairs(shouldStop: { false }, report: { _ in }).walked
        XCTAssertEqual(walked.map(\.path), [current.appending(Array("a.png".utf8)), baseline.appending(Array("a.png".utf8))])
        XCTAssertEqual(walked.map { $0.stamp?.size }, [10, 20])
        XCTAssertEqual(walked.map(\.stamp), walked.map { FileStamp.of($0.path) })
    }
}
