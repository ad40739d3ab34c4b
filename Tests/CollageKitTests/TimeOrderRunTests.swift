import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// With `--sort taken|mtime` the cap applies after sorting: every header is
/// read, and only the images used are decoded (the run's own count of the
/// decodes it began).
final class TimeOrderRunTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    /// 30 photos whose modification times run against their names.
    private func makePhotos(_ count: Int = 30) throws -> [PathName] {
        let inputs = folder("in")
        try makeDirectory(inputs)
        var paths: [PathName] = []
        for index in 0..<count {
            let path = inputs.appending(Array(String(format: "%02d.jpg", index).utf8))
            try writeFlatImage(path, RGB(red: UInt8(index * 8), green: 100, blue: 200), suffix: ".jpg")
            var times = [timespec(tv_sec: 1_750_000_000 - index * 3600, tv_nsec: 0),
                         timespec(tv_sec: 1_750_000_000 - index * 3600, tv_nsec: 0)]
            XCTAssertEqual(path.withCString { utimensat(AT_FDCWD, $0!, &times, 0) }, 0)
            paths.append(path)
        }
        return paths
    }

    private func configuration(_ sort: ImageOrder, reverse: Bool = false) -> CollageConfiguration {
        var configuration = CollageConfiguration(inputs: [.path(folder("in"))])
        (configuration.canvasWidth, configuration.canvasHeight) = (300, 200)
        configuration.jobs = 2
        configuration.maxImages = 3
        configuration.output = folder("out.png")
        (configuration.sort, configuration.reverse) = (sort, reverse)
        return configuration
    }

    func testTheCapAfterSortingDecodesOnlyTheImagesUsed() throws {
        let paths = try makePhotos()
        for (sort, reverse, expected) in [(ImageOrder.mtime, false, [29, 28, 27]), (.mtime, true, [0, 1, 2]),
                                          (.taken, false, [29, 28, 27]), (.name, true, [29, 28, 27])] {
            let (result, counts) = runCollageCounted(configuration(sort, reverse: reverse))
            XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
            XCTAssertEqual(result.written.first?.images, expected.map { paths[$0] }, "\(sort) \(reverse)")
            let accepted = result.events.filter { if case .accepted = $0 { return true } else { return false } }
            XCTAssertEqual(accepted.count, 30, "every header was read (\(sort))")
            XCTAssertEqual(counts.decodes, 3, "only the three images used were decoded (\(sort))")
        }
        // The scan's order stops at the cap, as before: no header pass.
        let (plain, counts) = runCollageCounted(configuration(.name))
        XCTAssertEqual(plain.written.first?.images, Array(paths.prefix(3)))
        XCTAssertEqual(counts.decodes, 3)
        XCTAssertLessThan(plain.events.filter { if case .accepted = $0 { return true } else { return false } }.count, 30)
    }

    /// A shard of sorted sheets decodes only its own sheets' images: of
    /// ten sheets of three, shard 0/3 makes sheets 1, 4, 7 and 10.
    func testAShardOfSortedSheetsDecodesOnlyItsOwnSheets() throws {
        let paths = try makePhotos()
        var configuration = configuration(.mtime)
        configuration.sheets = true
        configuration.shard = Shard(index: 0, count: 3)
        configuration.output = folder("s.png")
        let (result, counts) = runCollageCounted(configuration)
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        XCTAssertEqual(result.written.map(\.sheet), [1, 4, 7, 10])
        XCTAssertEqual(result.written.first?.images, [29, 28, 27].map { paths[$0] })
        XCTAssertEqual(result.written.last?.images, [2, 1, 0].map { paths[$0] })
        XCTAssertEqual(counts.decodes, 12, "only this shard's twelve images were decoded")
    }

    /// An image changed between the header pass and its turn is `failed`,
    /// saying so, and the next one in the order takes its place.
    func testAnImageChangedAfterItsHeaderWasReadFailsAndTheNextTakesItsPlace() throws {
        let paths = try makePhotos(5)
        var configuration = configuration(.mtime, reverse: true)
        configuration.maxImages = 2
        let run = CollageRun(configuration: configuration)
        let log = EventLog()
        let subscription = run.events.sink { event in
            log.record(event)
            // Once every header is read (the fifth accepted), the first in the order changes.
            if case .accepted(let path, _) = event, path == paths[4] {
                try? writeFlatImage(paths[0], RGB(red: 1, green: 2, blue: 3), width: 90, suffix: ".jpg")
            }
        }
        let outcome = run.run()
        subscription.cancel()
        let result = RunResult(outcome: outcome, events: log.events)
        XCTAssertEqual(outcome.status, .someInputsFailed)
        XCTAssertEqual(result.failed.map(\.path), [paths[0]])
        XCTAssertTrue(result.failed.first?.error.contains("changed since its header was read") == true,
                      result.failed.first?.error ?? "")
        XCTAssertEqual(result.written.first?.images, [paths[1], paths[2]])
    }
}
