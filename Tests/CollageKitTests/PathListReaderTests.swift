import Dispatch
import Glibc
@preconcurrency import OpenCombine
import XCTest
@testable import CollageKit

/// Paths read from standard input: records separated by newlines or NULs
/// come back byte for byte, and reading is lazy.
final class PathListReaderTests: XCTestCase {
    /// Awkward names: spaces, brackets (libvips would parse "[1]" as options),
    /// a leading dash, bytes that are not UTF-8, a tab, a backslash.
    private let awkward: [[UInt8]] = [
        Array("plain.jpg".utf8),
        Array("with space/and more.jpg".utf8),
        Array("photo[1].jpg".utf8),
        Array("-starts-with-dash.jpg".utf8),
        [0x6E, 0x6F, 0x74, 0xFF, 0xFE, 0x80] + Array("utf8.jpg".utf8),
        Array("tab\there\\back.jpg".utf8),
        Array("/absolute/ünïcödé.png".utf8),
    ]

    private func readAll(_ bytes: [UInt8], nulSeparated: Bool) throws -> ([[UInt8]], EventLog) {
        let pipe = try TestPipe()
        pipe.write(bytes)
        pipe.closeWriteEnd()
        let log = EventLog()
        var reader = PathListReader(descriptor: pipe.readEnd, nulSeparated: nulSeparated, report: log.record)
        var records: [[UInt8]] = []
        while let path = reader.next() { records.append(path.bytes) }
        XCTAssertNil(reader.next(), "stays at the end")
        return (records, log)
    }

    func testNewlineSeparated() throws {
        let input: [UInt8] = awkward.flatMap { $0 + [UInt8(10)] }
        let (records, log) = try readAll(input, nulSeparated: false)
        XCTAssertEqual(records, awkward)
        XCTAssertTrue(log.events.isEmpty)
    }

    func testNULSeparatedKeepsNewlinesInNames() throws {
        let names = awkward + [Array("new\nline.jpg".utf8), Array("trailing newline\n".utf8)]
        let (records, _) = try readAll(names.flatMap { $0 + [UInt8(0)] }, nulSeparated: true)
        XCTAssertEqual(records, names)
    }

    func testLastRecordWithoutSeparatorAndEmptyRecordsSkipped() throws {
        XCTAssertEqual(try readAll(Array("a\n\n\nb c\n\nd".utf8), nulSeparated: false).0,
                       [Array("a".utf8), Array("b c".utf8), Array("d".utf8)])
        XCTAssertEqual(try readAll([0, 0] + Array("x".utf8) + [0, 0] + Array("y\n".utf8), nulSeparated: true).0,
                       [Array("x".utf8), Array("y\n".utf8)])
        XCTAssertEqual(try readAll([], nulSeparated: false).0, [])
    }

    func testLongListAcrossManyReads() throws {
        // More than one 64 KiB block, records cut across block boundaries.
        let names = (0..<5000).map { Array("folder/photo number \($0) [copy].jpg".utf8) }
        let pipe = try TestPipe()
        let writer = DispatchQueue(label: "writer")
        let payload: [UInt8] = names.flatMap { $0 + [UInt8(0)] }
        writer.async {
            pipe.write(payload)
            pipe.closeWriteEnd()
        }
        var reader = PathListReader(descriptor: pipe.readEnd, nulSeparated: true, report: { _ in })
        var records: [[UInt8]] = []
        while let path = reader.next() { records.append(path.bytes) }
        XCTAssertEqual(records.count, names.count)
        XCTAssertEqual(records, names)
    }

    func testReadsOnlyWhenAskedAndValuesArriveBeforeEOF() throws {
        let pipe = try TestPipe()
        var reader = PathListReader(descriptor: pipe.readEnd, nulSeparated: false, report: { _ in })

        pipe.write(Array("one.jpg\n".utf8))
        XCTAssertTrue(pipe.hasUnreadBytes, "nothing read before a path is asked for")
        XCTAssertEqual(reader.next()?.bytes, Array("one.jpg".utf8), "a path comes out while the writer is still open")
        XCTAssertFalse(pipe.hasUnreadBytes)

        pipe.write(Array("two.jpg\nthree.jpg\n".utf8))
        XCTAssertTrue(pipe.hasUnreadBytes, "the reader did not read ahead after one.jpg")
        XCTAssertEqual(reader.next()?.bytes, Array("two.jpg".utf8))
        // Both records came in one read; the second is served from the buffer.
        XCTAssertEqual(reader.next()?.bytes, Array("three.jpg".utf8))

        pipe.write(Array("four.jpg".utf8))
        pipe.closeWriteEnd()
        XCTAssertEqual(reader.next()?.bytes, Array("four.jpg".utf8))
        XCTAssertNil(reader.next())
    }

    func testThroughThePublisherAValueArrivesBeforeEOF() throws {
        let pipe = try TestPipe()
        let descriptor = pipe.readEnd
        pipe.write(Array("first.jpg\n".utf8))
        let subscriber = RecordingSubscriber<PathName>()
        Publishers.Pull { PathListReader(descriptor: descriptor, nulSeparated: false, report: { _ in }) }
            .subscribe(subscriber)
        // The request blocks in read() if the reader wants more than one record: run it
        // on another thread and wait with a deadline, so a wrong reader fails instead of hanging.
        DispatchQueue.global().async { subscriber.request(.max(1)) }
        let arrived = subscriber.valueSignal.wait(timeout: .now() + 10)
        XCTAssertEqual(arrived, .success, "first.jpg must arrive while standard input is still open")
        XCTAssertEqual(subscriber.values, [PathName("first.jpg")])
        pipe.write(Array("second.jpg\n".utf8))
        XCTAssertTrue(pipe.hasUnreadBytes, "no read beyond the demand")
        pipe.closeWriteEnd()
        subscriber.request(.max(5))
        XCTAssertEqual(subscriber.completionSignal.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(subscriber.values, [PathName("first.jpg"), PathName("second.jpg")])
    }

    func testReadErrorIsReported() {
        let log = EventLog()
        var reader = PathListReader(descriptor: -1, nulSeparated: false, report: log.record)
        XCTAssertNil(reader.next())
        XCTAssertEqual(log.failures.map { $0.0 }, [PathName("-")])
    }
}

/// All INPUTs as one lazy walk: files as named (explicit, whatever their
/// name), folders walked, `-` read; a folder named on standard input is walked.
final class InputWalkTests: XCTestCase {
    func testInputsInOrder() throws {
        let folder = try TemporaryDirectory()
        try makeDirectory(folder("dir"))
        try makeDirectory(folder("listed-dir"))
        for name in ["dir/b.jpg", "dir/a.png", "dir/notes.txt", "listed-dir/z.gif"] {
            try writeFile([], to: folder(name))
        }
        try writeFile([], to: folder("named.txt"))

        let list = try TestPipe()
        list.write(folder("listed-dir").bytes + [10] + Array("/no/such/file.bmp\n".utf8))
        list.closeWriteEnd()
        var walk = InputWalk(inputs: [.path(folder("named.txt")), .path(folder("dir")), .standardInput,
                                      .path(PathName("-literal-dash.jpg"))],
                             followLinks: false, nulSeparated: false, standardInput: list.readEnd, report: { _ in })
        var files: [InputFile] = []
        while let file = walk.next() { files.append(file) }
        XCTAssertEqual(files.map(\.path), [folder("named.txt"), folder("dir/a.png"), folder("dir/b.jpg"),
                                           folder("listed-dir/z.gif"), PathName("/no/such/file.bmp"),
                                           PathName("-literal-dash.jpg")])
        XCTAssertEqual(files.map(\.explicit), [true, false, false, false, true, true],
                       "named files are tried whatever their name; walked ones were chosen by extension")
    }
}
