import Dispatch
import Glibc
@preconcurrency import OpenCombine
import XCTest
@testable import CollageKit

/// The demand-driven scanner's walk: `DirectoryWalk`'s order, filters and
/// link rules are the contract's, and through `Publishers.Pull` it emits
/// only what was asked for and stops when cancelled.
final class DirectoryWalkTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder = nil }

    /// Creates empty files (and their folders) under the temporary folder.
    private func touch(_ names: [[UInt8]]) throws {
        for name in names {
            var prefix: [UInt8] = []
            for component in name.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropLast() {
                prefix += component
                let directory = folder(bytes: prefix)
                var info = stat()
                if directory.withCString({ stat($0!, &info) }) != 0 { try makeDirectory(directory) }
                prefix.append(UInt8(ascii: "/"))
            }
            try writeFile([], to: folder(bytes: name))
        }
    }

    /// Walks `root` to the end, returning the paths (relative to the folder) and the reports.
    private func walkAll(_ root: PathName? = nil, followLinks: Bool = false) -> ([[UInt8]], EventLog) {
        let log = EventLog()
        var walk = DirectoryWalk(root: root ?? folder.pathName, followLinks: followLinks, report: log.record)
        var found: [[UInt8]] = []
        let base = folder.pathName.bytes.count + 1
        while let path = walk.next() { found.append(Array(path.bytes[base...])) }
        return (found, log)
    }

    private func text(_ names: [[UInt8]]) -> [String] { names.map { String(decoding: $0, as: UTF8.self) } }

    func testOrderIsTheByteOrderOfNamesDepthFirst() throws {
        let notUTF8: [UInt8] = [0xFF, 0xFE] + Array(".jpg".utf8)
        let names: [[UInt8]] = [
            "a.jpg", "B.jpg", "Z.JPG", "a b.jpg", "_u.jpg", "10.jpg", "9.jpg", "\u{E4}.jpg",
            "m/2.png", "m/10.png", "m/n/x.gif", "m-a.jpg", "m.jpg", "e\u{301}.jpg", "\u{E9}.jpg",
        ].map { Array($0.utf8) } + [notUTF8]
        try touch(names)

        let (found, log) = walkAll()
        // Written out by hand: byte order of each folder's names ("B" 0x42 < "_" 0x5f < "a" 0x61,
        // "a b" < "a.", "m" < "m-a.jpg" < "m.jpg" although "m-" < "m/" as whole paths), folders
        // entered where their name sorts, UTF-8 multi-byte names after ASCII, 0xFF last.
        let expected: [[UInt8]] = [
            "10.jpg", "9.jpg", "B.jpg", "Z.JPG", "_u.jpg", "a b.jpg", "a.jpg",
            "e\u{301}.jpg",  // 65 cc 81: "e" then a combining accent
            "m/10.png", "m/2.png", "m/n/x.gif", "m-a.jpg", "m.jpg",
            "\u{E4}.jpg",    // c3 a4
            "\u{E9}.jpg",    // c3 a9
        ].map { Array($0.utf8) } + [notUTF8]
        XCTAssertEqual(text(found), text(expected))
        XCTAssertEqual(found, expected, "byte-exact, including the name that is not UTF-8")
        XCTAssertTrue(log.events.isEmpty)
    }

    func testHiddenNamesAreSkipped() throws {
        try touch(["seen.jpg", ".hidden.jpg", ".folder/inside.jpg", "sub/.also-hidden.png", "sub/seen.png"]
            .map { Array($0.utf8) })
        XCTAssertEqual(text(walkAll().0), ["seen.jpg", "sub/seen.png"])
    }

    func testOnlyImageExtensionsCaseInsensitive() throws {
        try touch(["a.JPG", "b.Jpeg", "c.PNG", "d.webp", "e.GIF", "f.tif", "g.TIFF", "h.heic", "i.HEIF", "j.avif",
                   "k.txt", "l", "m.jpg.bak", "n.jpgx", "jpg", "o.xcf", "p.svg", "q.pdf"].map { Array($0.utf8) })
        XCTAssertEqual(text(walkAll().0),
                       ["a.JPG", "b.Jpeg", "c.PNG", "d.webp", "e.GIF", "f.tif", "g.TIFF", "h.heic", "i.HEIF", "j.avif"])
    }

    /// root/: dangling.jpg -> nowhere, dir-link -> ../elsewhere/dir, file-link.jpg ->
    /// ../elsewhere/real.png, text-link -> ../elsewhere/real.png, sub/{s.jpg, self -> ., up -> ..}
    private func makeLinkedTree() throws -> PathName {
        let root = folder("root")
        try touch(["root/sub/s.jpg", "elsewhere/real.png", "elsewhere/dir/inner.jpg"].map { Array($0.utf8) })
        try makeSymlink(folder("root/dangling.jpg"), to: "nowhere.jpg")
        try makeSymlink(folder("root/dir-link"), to: "../elsewhere/dir")
        try makeSymlink(folder("root/file-link.jpg"), to: "../elsewhere/real.png")
        try makeSymlink(folder("root/text-link"), to: "../elsewhere/real.png")
        try makeSymlink(folder("root/sub/self"), to: ".")
        try makeSymlink(folder("root/sub/up"), to: "..")
        return root
    }

    func testLinksToFilesFollowedLinksToFoldersNot() throws {
        let root = try makeLinkedTree()
        let (found, log) = walkAll(root)
        XCTAssertEqual(text(found), ["root/file-link.jpg", "root/sub/s.jpg"],
                       "the link to a file is emitted under its own name; folders behind links are not entered")
        XCTAssertEqual(log.failures.map { $0.0 }, [folder("root/dangling.jpg")])
        XCTAssertEqual(log.failures.first?.1, "dangling symbolic link")
        XCTAssertEqual(log.events.count, 1, "no loop is reported when links to folders are not followed")
    }

    func testFollowLinksEntersLinkedFoldersAndReportsEachLoopOnce() throws {
        let root = try makeLinkedTree()
        let (found, log) = walkAll(root, followLinks: true)
        XCTAssertEqual(text(found), ["root/dir-link/inner.jpg", "root/file-link.jpg", "root/sub/s.jpg"])
        let failures = log.failures
        XCTAssertEqual(failures.map { $0.0 },
                       [folder("root/dangling.jpg"), folder("root/sub/self"), folder("root/sub/up")],
                       "each loop reported once, in walk order")
        XCTAssertEqual(failures.filter { $0.1.contains("loop") }.count, 2, "\(failures.map { $0.1 })")
        XCTAssertEqual(log.events.count, 3)
    }

    func testSpecialFileWithAnImageNameIsRejected() throws {
        let fifo = folder("pipe.jpg")
        XCTAssertEqual(fifo.withCString { mkfifo($0!, 0o644) }, 0)
        try touch([Array("real.jpg".utf8)])
        let (found, log) = walkAll()
        XCTAssertEqual(text(found), ["real.jpg"])
        guard case .rejected(let path, .unsupported, _)? = log.events.first else {
            return XCTFail("expected a rejection, got \(log.events)")
        }
        XCTAssertEqual(path, fifo)
    }

    func testMissingRootIsReported() {
        let log = EventLog()
        var walk = DirectoryWalk(root: folder("absent"), followLinks: false, report: log.record)
        XCTAssertNil(walk.next())
        XCTAssertEqual(log.failures.map { $0.0 }, [folder("absent")])
    }

    // MARK: - Through the publisher

    func testScannerNeverSendsMoreThanRequested() throws {
        try touch((0..<8).map { Array("f\($0).jpg".utf8) })
        let calls = Counter()
        let root = folder.pathName
        let subscriber = RecordingSubscriber<PathName>(initialDemand: .max(1))
        Publishers.Pull { CountingSource(base: DirectoryWalk(root: root, followLinks: false, report: { _ in }), calls: calls) }
            .subscribe(subscriber)
        XCTAssertEqual(subscriber.values, [folder("f0.jpg")], "demand of one yields exactly one")
        XCTAssertEqual(calls.value, 1)
        subscriber.request(.max(3))
        XCTAssertEqual(subscriber.values, (0..<4).map { folder("f\($0).jpg") })
        XCTAssertEqual(calls.value, 4)
        XCTAssertEqual(subscriber.overflows, 0)
        XCTAssertEqual(subscriber.completions, 0)
    }

    /// a.jpg, b.jpg, c.jpg, then z/x.jpg: a dangling link the walk reports when it gets there.
    private func makeTreeWithALateDanglingLink() throws {
        try touch(["a.jpg", "b.jpg", "c.jpg"].map { Array($0.utf8) })
        try makeDirectory(folder("z"))
        try makeSymlink(folder("z/x.jpg"), to: "missing.jpg")
    }

    func testTheLateDanglingLinkIsReportedWhenReached() throws {
        // The control for the cancel tests below: walked to the end, the link is reported.
        try makeTreeWithALateDanglingLink()
        let (found, log) = walkAll()
        XCTAssertEqual(text(found), ["a.jpg", "b.jpg", "c.jpg"])
        XCTAssertEqual(log.failures.map { $0.0 }, [folder("z/x.jpg")])
    }

    func testCancelStopsTheWalk() throws {
        try makeTreeWithALateDanglingLink()
        let calls = Counter()
        let log = EventLog()
        let root = folder.pathName
        let subscriber = RecordingSubscriber<PathName>(initialDemand: .max(1))
        Publishers.Pull { CountingSource(base: DirectoryWalk(root: root, followLinks: false, report: log.record), calls: calls) }
            .subscribe(subscriber)
        subscriber.request(.max(1))
        XCTAssertEqual(subscriber.values, [folder("a.jpg"), folder("b.jpg")])
        subscriber.cancel()
        subscriber.request(.max(10))
        XCTAssertEqual(subscriber.values.count, 2, "nothing after the cancel")
        XCTAssertEqual(calls.value, 2, "the walk went no further than the cancel")
        XCTAssertTrue(log.events.isEmpty, "z/x.jpg was never visited: \(log.events)")
        XCTAssertEqual(subscriber.completions, 0)
    }

    func testCancelFromInsideReceiveStopsTheWalk() throws {
        try makeTreeWithALateDanglingLink()
        let calls = Counter()
        let log = EventLog()
        let root = folder.pathName
        // Unlimited demand; cancels on c.jpg, the last entry before the folder holding the link.
        let subscriber = RecordingSubscriber<PathName>(initialDemand: .unlimited) { subscriber, _ in
            if subscriber.values.count == 3 { subscriber.cancel() }
            return .none
        }
        Publishers.Pull { CountingSource(base: DirectoryWalk(root: root, followLinks: false, report: log.record), calls: calls) }
            .subscribe(subscriber)
        XCTAssertEqual(subscriber.values.count, 3)
        XCTAssertEqual(calls.value, 3)
        XCTAssertTrue(log.events.isEmpty, "z/x.jpg was never visited: \(log.events)")
    }
}
