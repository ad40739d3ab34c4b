import XCTest
@testable import CollageKit
import FileFacts
import CollageTestSupport

/// What `--pick` and `--sort taken` keep per photo over a large folder:
/// a compact row (no header), a packed score, the moments chosen on arrays;
/// and that the arrays choose exactly as the list of candidates did.
final class PickFlatTests: XCTestCase {
    /// A made-up day: scenes shot once or in bursts (a few bits apart, a
    /// few seconds apart), some shot again later, some blank, blurred,
    /// rated (-1 among them) or smaller; with dates, or (`dated` false)
    /// some without; indices not in the input's order.
    private func day(_ count: Int, dated: Bool, seed: UInt64) -> [PickCandidate] {
        var random = SplitMix64(seed: seed)
        var photos: [PickCandidate] = []
        var time: Int64 = 1_700_000_000_000
        var scenes: [UInt64] = []
        while photos.count < count {
            let again = !scenes.isEmpty && Int.random(in: 0..<6, using: &random) == 0
            let scene = again ? scenes.randomElement(using: &random)! : UInt64.random(in: 0...UInt64.max, using: &random)
            if !again { scenes.append(scene) }
            time += Int64.random(in: 1_000...(again ? 3_600_000 : 60_000), using: &random)
            for _ in 0..<(Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 2...9, using: &random) : 1) {
                var print = scene
                for _ in 0..<Int.random(in: 0...12, using: &random) { print ^= 1 << UInt64.random(in: 0..<64, using: &random) }
                var score = PickScore(sharpness: Double.random(in: 0.2...0.9, using: &random),
                                      clipped: Double.random(in: 0...0.3, using: &random),
                                      blank: Int.random(in: 0..<25, using: &random) == 0)
                if Int.random(in: 0..<5, using: &random) > 0 {
                    score.edgeSteepness = Float.random(in: 0.3...1, using: &random)
                    score.edgeKept = Int.random(in: 0..<6, using: &random) == 0 ? nil : Float.random(in: 0.5...1.1, using: &random)
                }
                score.pixels = [640 * 400, 2560 * 1600][Int.random(in: 0...1, using: &random)]
                if Int.random(in: 0..<4, using: &random) == 0 { score.rating = Int.random(in: -1...5, using: &random) }
                if Int.random(in: 0..<8, using: &random) == 0 { score.faces = Int.random(in: 1...3, using: &random) }
                let undated = !dated && Int.random(in: 0..<10, using: &random) == 0
                photos.append(PickCandidate(index: photos.count * 3 + 1, time: undated ? nil : time,
                                            fingerprint: print, score: score))
                time += Int64.random(in: 100...2_500, using: &random)
            }
        }
        return photos.shuffled(using: &random)
    }

    func testTheArraysChooseAsTheListOfCandidatesDid() {
        for seed in 0..<24 as Range<UInt64> {
            let photos = day(Int(seed % 6) * 70 + 5, dated: seed % 3 != 0, seed: seed)
            XCTAssertEqual(Moments.group(photos), ListMoments.group(photos), "seed \(seed)")
            for cap in [nil, 1, 6, 12, 200] as [Int?] {
                XCTAssertEqual(Moments.choose(photos, cap: cap), ListMoments.choose(photos, cap: cap),
                               "seed \(seed), cap \(cap.map(String.init) ?? "none")")
            }
        }
    }

    func testAPackedScoreGivesBackTheScoreItWasMadeFrom() {
        var score = PickScore(sharpness: 0.123456789, clipped: 0.987654321, blank: true)
        (score.faces, score.facesCut, score.rating, score.pixels) = (3, 2, -1, 48_000_000)
        for rating in [nil, -1, 0, 5] as [Int?] {
            for (steepness, kept) in [(nil, nil), (0.1234567, nil), (0.7654321, 0.7123456)] as [(Float?, Float?)] {
                (score.rating, score.edgeSteepness, score.edgeKept) = (rating, steepness, kept)
                XCTAssertEqual(PackedScore(score).score, score)
                XCTAssertTrue(PackedScore(score).looked)
            }
        }
        XCTAssertFalse(PackedScore.failed.looked)
        XCTAssertEqual(MemoryLayout<PackedScore>.stride, 48, "the score of each photo looked at")
        XCTAssertLessThan(MemoryLayout<PackedScore>.stride, MemoryLayout<PickScore?>.stride)
    }

    /// The header pass of a pick or a sort keeps, per photo, its path's
    /// bytes and 32 more (at most twice that while its arrays grow): a
    /// photo's header (some 220 bytes) kept with it would fail this.
    func testAHeaderPassKeepsACompactRowPerPhoto() {
        var table = PhotoTable()
        let count = 50_000
        for row in 0..<count {
            let path = PathName("/photos/2026/d\(row / 1000)/IMG_\(100_000 + row).jpg")
            table.append(path: path, stamp: FileStamp(size: Int64(row), modified: Int64(row) * 7),
                         key: row % 5 == 0 ? nil : Int64(row % 977), partners: row == 77 ? [PathName("/raw/77.dng")] : [])
        }
        let pathBytes = (0..<count).reduce(0) { $0 + "/photos/2026/d\($1 / 1000)/IMG_\(100_000 + $1).jpg".utf8.count }
        XCTAssertLessThanOrEqual(table.bytesHeld, 2 * (pathBytes + 32 * count) + 1024)
        XCTAssertEqual(table.path(49_999), PathName("/photos/2026/d49/IMG_149999.jpg"))
        XCTAssertEqual(table.stamps[4_321], FileStamp(size: 4_321, modified: 30_247))
        XCTAssertEqual(table.key(10), nil)
        XCTAssertEqual(table.key(11), 11)
        XCTAssertEqual(table.partners(77), [PathName("/raw/77.dng")])
        XCTAssertEqual(table.partners(78), [])
        XCTAssertEqual(table.image(77).partners, [PathName("/raw/77.dng")])
    }

    /// The moments of 50,000 photos, each a moment of its own (the worst
    /// case): four `Int32`s and a key per moment, and the pick's order.
    func testMomentsOfFiftyThousandPhotosAreArrays() {
        let count = 50_000
        var random = SplitMix64(seed: 7)
        let photos = MomentPhotos(times: (0..<count).map { Int64($0) * 60_000 },
                                  prints: (0..<count).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) },
                                  scores: (0..<count).map { _ in PackedScore(PickScore(sharpness: 0.7, clipped: 0, blank: false)) })
        let choice = Moments.choose(photos, cap: 12)
        let moments = choice.moments
        XCTAssertEqual(moments.count, count, "random fingerprints: no two alike")
        let held = moments.members.capacity * 4 + moments.starts.capacity * 8 + moments.best.capacity * 4
            + moments.keys.capacity * 8
        XCTAssertLessThanOrEqual(held, count * 24 + 1024)
        XCTAssertEqual(choice.picked.count, 12)
        XCTAssertEqual(choice.beyondCap, count - 12)
        XCTAssertEqual(choice.picked.map { moments.keys[Int($0)] }, choice.picked.map { moments.keys[Int($0)] }.sorted())
    }

    /// `--sort taken|mtime` and `--reverse` on the table's rows: the order
    /// the header pass's dated images were sorted in.
    func testTheTableSortsAsTheDatedImagesDid() {
        var random = SplitMix64(seed: 11)
        let header = ImageHeader(width: 4, height: 3, orientation: 1, format: "jpeg")
        var images: [DatedImage] = []
        for row in 0..<300 {
            let taken = LocalDateTime(year: 2026, month: 8, day: Int.random(in: 1...3, using: &random),
                                      hour: Int.random(in: 0...23, using: &random), minute: 0, offsetMinutes: 0)!
            let stamp = FileStamp(size: 1, modified: Int64.random(in: 0...5, using: &random) * 1_000_000_000)
            let image = DatedImage(image: ChosenImage(path: PathName("p\(row).jpg"), header: header, stamp: stamp,
                                                      partners: []),
                                   scanIndex: row, taken: TakenTime(local: taken, source: .metadata))
            images.append(image)
        }
        for order in [ImageOrder.taken, .mtime, .name] {
            var table = PhotoTable()
            for image in images {
                table.append(path: image.image.path, stamp: image.image.stamp,
                             key: image.taken.key(order, stamp: image.image.stamp), partners: [])
            }
            for reverse in [false, true] {
                XCTAssertEqual(table.sortedRows(reverse: reverse), images.sortedIndices(by: order, reverse: reverse),
                               "\(order), reverse \(reverse)")
            }
        }
    }

    /// Only stacks are kept for `{stack}`; a photo that stood for three and
    /// now (a later pass) stands for itself alone says so.
    func testStackSizesKeepOnlyStacks() {
        let sizes = StackSizes(), path = PathName("a.jpg")
        sizes.record(path, members: 3)
        XCTAssertEqual(sizes.label(path), "+2")
        sizes.record(path, members: 1)
        XCTAssertEqual(sizes.members(path), 1)
        XCTAssertEqual(sizes.label(path), "")
    }
}
