import XCTest
@testable import CollageKit

/// The pick's choices on candidates made here (fingerprints and scores
/// given, no pixels): bursts, duplicates, the best of each, the spread.
final class PickMomentTests: XCTestCase {
    private let sharp = PickScore(sharpness: 0.7, clipped: 0, blank: false)
    private let softer = PickScore(sharpness: 0.6, clipped: 0, blank: false)
    private let blurred = PickScore(sharpness: 0.3, clipped: 0, blank: false)
    private let blank = PickScore(sharpness: 0, clipped: 1, blank: true)

    /// Scene `scene`'s fingerprint, `bits` bits away from its first frame.
    private func look(_ scene: Int, off bits: Int = 0) -> UInt64 {
        var print = (UInt64(scene) &* 0x9E37_79B9_7F4A_7C15) | 1
        for bit in 0..<bits { print ^= 1 << UInt64(40 + bit) }
        return print
    }

    private func photo(_ index: Int, at seconds: Int64?, _ print: UInt64, _ score: PickScore? = nil,
                       rating: Int? = nil) -> PickCandidate {
        var score = score ?? sharp
        score.rating = rating
        return PickCandidate(index: index, time: seconds.map { $0 * 1000 }, fingerprint: print, score: score)
    }

    func testABurstIsOneMomentShownByItsSharpestFrame() {
        let photos = [photo(0, at: 100, look(1), softer), photo(1, at: 101, look(1, off: 6), sharp),
                      photo(2, at: 102, look(1, off: 10), blurred), photo(3, at: 500, look(2)),
                      photo(4, at: 900, look(3)), photo(5, at: 901, look(3, off: 4), softer)]
        let moments = Moments.group(photos)
        XCTAssertEqual(moments.map(\.members), [[0, 1, 2], [3], [4, 5]])
        XCTAssertEqual(moments.map(\.best), [1, 3, 4])
        XCTAssertEqual(Moments.choose(photos, cap: nil).picked.map(\.best), [1, 3, 4])
    }

    /// A smaller, re-encoded copy as good as its original stands for it,
    /// never the other way round; a clearly sharper small one still wins.
    func testOfTwoAsGoodTheLargerPhotoWins() {
        var original = PickScore(sharpness: 0.70, clipped: 0.01, blank: false), copy = sharp
        (original.pixels, copy.pixels) = (2560 * 1600, 800 * 500)
        let photos = [photo(0, at: 100, look(1), copy), photo(1, at: 100, look(1, off: 2), original)]
        XCTAssertEqual(Moments.group(photos).map(\.best), [1], "the original, whatever the order")
        var sharper = copy
        sharper.sharpness = 0.3
        XCTAssertEqual(Moments.group([photo(0, at: 100, look(1), original),
                                      photo(1, at: 100, look(1, off: 2), sharper)]).map(\.best), [0])
    }

    func testTheSameSceneHoursApartIsOneMomentOnlyWhenItIsAlmostTheSame() {
        let photos = [photo(0, at: 0, look(1)), photo(1, at: 7200, look(1, off: 3)), photo(2, at: 9000, look(1, off: 14))]
        XCTAssertEqual(Moments.group(photos).map(\.members), [[0, 1], [2]])
    }

    func testARatedFiveWinsItsBurstAndARejectedOneIsNeverShown() {
        let burst = [photo(0, at: 10, look(1), sharp), photo(1, at: 11, look(1, off: 2), softer, rating: 5),
                     photo(2, at: 12, look(1, off: 3), sharp, rating: -1)]
        XCTAssertEqual(Moments.group(burst).map(\.best), [1])
        let rejected = [photo(0, at: 10, look(1), sharp, rating: -1), photo(1, at: 500, look(2))]
        let outcome = Moments.choose(rejected, cap: 6)
        XCTAssertEqual(outcome.picked.map(\.best), [1])
        XCTAssertEqual(outcome.rejected, [0])
    }

    func testTheCapSpreadsOverTheSpanInTimeOrderNeverBlankNorBlurredWhileSharpIsLeft() {
        // Twelve scenes over a day, given out of time order; a blank and a blurred one among them.
        var photos: [PickCandidate] = []
        for scene in 0..<12 { photos.append(photo(11 - scene, at: Int64(scene) * 3600, look(scene + 1))) }
        photos.append(photo(12, at: 3600 * 5 + 60, look(40), blank))
        photos.append(photo(13, at: 3600 * 11, look(41), blurred))
        let outcome = Moments.choose(photos, cap: 6)
        let hours = outcome.picked.map { $0.key / 3_600_000 }
        XCTAssertEqual(hours, hours.sorted(), "in time order")
        XCTAssertEqual(hours.first, 0)
        XCTAssertEqual(hours.last, 11, "the span's both ends")
        XCTAssertEqual(Set(hours).count, 6, "six distinct moments")
        XCTAssertFalse(outcome.picked.contains { $0.best == 12 || $0.best == 13 })
        XCTAssertEqual(outcome.blank, [12])
        XCTAssertTrue(outcome.blurred.contains(13))
        XCTAssertEqual(Moments.choose(photos.reversed(), cap: 6), outcome, "the order given does not matter")
    }

    /// A clearly blurred moment is never picked, cap or no cap: said as left out blurred.
    func testABlurredMomentIsLeftOutCapOrNoCap() {
        let photos = [photo(0, at: 0, look(1)), photo(1, at: 100, look(2), blurred), photo(2, at: 200, look(3))]
        XCTAssertEqual(Moments.choose(photos, cap: 2).picked.map(\.best), [0, 2])
        for cap in [3, 6, nil] {
            let outcome = Moments.choose(photos, cap: cap)
            XCTAssertEqual(outcome.picked.map(\.best), [0, 2])
            XCTAssertEqual(outcome.blurred, [1])
            XCTAssertEqual(outcome.beyondCap, [])
        }
        let choice = Moments.choose(MomentPhotos(times: photos.map { $0.time! }, prints: photos.map(\.fingerprint),
                                                 scores: photos.map { PackedScore($0.score) }), cap: nil)
        XCTAssertEqual(PickPass.told(choice, photos: 3),
                       "pick: 2 moments of 3 photos: 0 stacked into their moment's best, 1 left out blurred")
        // A blurred frame of a burst is stood for by its sharp best, not left out.
        let burst = [photo(0, at: 0, look(1), blurred), photo(1, at: 1, look(1, off: 3))]
        XCTAssertEqual(Moments.choose(burst, cap: nil).picked.map(\.members), [[0, 1]])
        XCTAssertEqual(Moments.choose(burst, cap: nil).blurred, [])
    }

    /// Photos a second or less apart in sequence are one moment however
    /// far their fingerprints move (a moving subject, a pan), unless even
    /// the coarsest layout changed (another scene); the sequence is each
    /// photo to the one before, however long it runs.
    func testASequenceASecondOrLessApartIsOneMomentUnlessTheSceneChanged() {
        // Each frame 24 bits from the one before, none of them coarse: a subject moving, the frame panning.
        let loose = (1..<64).filter { Fingerprint.coarse & (1 << UInt64($0)) == 0 }
        func moved(_ scene: Int, _ step: Int) -> UInt64 {
            (0..<24).reduce(look(scene)) { $0 ^ (1 << UInt64(loose[(12 * step + $1) % loose.count])) }
        }
        for step in 1..<7 {
            XCTAssertGreaterThan(Fingerprint.distance(moved(1, step - 1), moved(1, step)), Moments.burstDistance)
            XCTAssertEqual(Fingerprint.coarseDistance(moved(1, step - 1), moved(1, step)), 0)
        }
        let milliseconds: [Int64] = [0, 200, 400, 600, 800, 1_700, 2_600]
        let burst = milliseconds.indices.map {
            PickCandidate(index: $0, time: 50_000 + milliseconds[$0], fingerprint: moved(1, $0), score: sharp)
        }
        XCTAssertEqual(Moments.group(burst).map(\.members), [Array(0..<7)])
        XCTAssertEqual(Moments.group(burst), ListMoments.group(burst))
        // Another scene in the same second, its coarse layout changed: its own moment, and the burst goes on after it.
        let other = look(9) ^ (Fingerprint.coarse & 0x0000_0000_0F0F_0F0F)
        XCTAssertGreaterThan(Fingerprint.coarseDistance(look(1), other), Moments.sceneCoarseDistance)
        let cut = burst + [PickCandidate(index: 7, time: 50_900, fingerprint: other, score: sharp)]
        XCTAssertEqual(Moments.group(cut).map(\.members).sorted { $0[0] < $1[0] }, [[0, 1, 2, 3, 4, 5, 6], [7]])
        XCTAssertEqual(Moments.group(cut), ListMoments.group(cut))
        // Two seconds apart, the same move is two moments.
        let apart = [PickCandidate(index: 0, time: 0, fingerprint: moved(1, 0), score: sharp),
                     PickCandidate(index: 1, time: 2_000, fingerprint: moved(1, 1), score: sharp)]
        XCTAssertEqual(Moments.group(apart).count, 2)
    }

    func testWithoutDatesNeighboursInTheInputAreTheBurst() {
        let photos = [photo(0, at: nil, look(1)), photo(1, at: nil, look(1, off: 12), softer),
                      photo(2, at: nil, look(2)), photo(3, at: 50, look(1, off: 24))]
        // One photo without a date: the input order for all; 3 is not 0's neighbour, too far to be the same.
        XCTAssertEqual(Moments.group(photos).map(\.members), [[0, 1], [2], [3]])
        XCTAssertEqual(Moments.group(photos).map(\.key), [0, 2, 3])
    }

    func testAllIdenticalIsOneMomentAndAllBlankIsNone() {
        let same = (0..<5).map { photo($0, at: 100, look(7)) }
        XCTAssertEqual(Moments.choose(same, cap: 6).picked.map(\.best), [0], "ties go to the input order")
        let blanks = (0..<4).map { photo($0, at: Int64($0), look($0), blank) }
        let outcome = Moments.choose(blanks, cap: 6)
        XCTAssertEqual(outcome.picked, [])
        XCTAssertEqual(outcome.blank, [0, 1, 2, 3])
    }
}

extension PickMomentTests {
    /// The same scene far back (more moments ago than are compared one by
    /// one) is still found, through the index of parts.
    func testTheSameSceneIsFoundHoweverFarBack() {
        var photos: [PickCandidate] = []
        for round in 0..<3 {
            for scene in 0..<50 {
                let print = (UInt64(scene + 1) &* 0x9E37_79B9_7F4A_7C15) ^ (round == 0 ? 0 : 0b1000_0001 << UInt64(round * 9))
                photos.append(PickCandidate(index: photos.count, time: nil, fingerprint: print,
                                            score: PickScore(sharpness: 0.7, clipped: 0, blank: false)))
            }
        }
        let moments = Moments.group(photos)
        XCTAssertEqual(moments.count, 50)
        XCTAssertEqual(moments[0].members, [0, 50, 100])
        var index = SameLookIndex()
        index.insert(0xFFFF_0000_FFFF_0000, group: 3)
        XCTAssertEqual(index.nearest(0xFFFF_0000_FFFF_0000 ^ 0x0101_0101_0101_0101, within: 8)?.group, 3, "8 bits apart")
        XCTAssertNil(index.nearest(0xFFFF_0000_FFFF_0000 ^ 0x0101_0101_0101_0103, within: 8), "9 bits apart")
    }
}
