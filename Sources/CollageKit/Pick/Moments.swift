/// One photo as `--pick` knows it once it has been looked at: no pixels,
/// only its place in the input, its time, fingerprint and score.
struct PickCandidate: Sendable, Equatable {
    /// Its place in the input (the scan, or a group's list).
    let index: Int
    /// When it was taken, milliseconds since the epoch; nil without a date
    /// of its own (its metadata's or its name's).
    let time: Int64?
    let fingerprint: UInt64
    let score: PickScore
}

/// Near-duplicates grouped into moments, each represented by its best.
struct PickMoment: Sendable, Equatable {
    /// Its photos (indices into the candidates), in time order.
    let members: [Int]
    /// The one it shows; nil when every member is excluded (blank, rejected).
    let best: Int?
    /// Where it falls in time (its best's, else its first's); the input order where no date is.
    let key: Int64
}

/// The pick as it will be placed, with what it left out and why.
struct PickOutcome: Sendable, Equatable {
    /// The moments shown, in time order.
    var picked: [PickMoment] = []
    /// Candidates left out because they are blank, or rated -1.
    var blank: [Int] = []
    var rejected: [Int] = []
    /// Moments left out by the cap (their members).
    var beyondCap: [Int] = []
    /// Moments left out because their best was clearly blurred (their
    /// members), cap or no cap.
    var blurred: [Int] = []
}

/// The pick's choices, as pure functions of the candidates: deterministic,
/// ties to the input order. The run chooses on arrays (`table(_:)`,
/// `choose(_:cap:)` on `MomentPhotos`); these give the same answer on a
/// list of candidates.
enum Moments {
    /// Photos at most this far apart (milliseconds) are one burst when they look alike.
    static let burst: Int64 = 10_000
    /// The largest fingerprint distance within a burst (or, without dates,
    /// between neighbours in the input), and anywhere else (the same scene
    /// shot again, or copied).
    static let burstDistance = 20
    static let sameDistance = 8
    /// How many recent moments a photo is compared with.
    static let recent = 32
    /// Photos at most this far apart (milliseconds) in time order are one
    /// moment unless the scene changed (`sceneChanged`): a burst of a
    /// moving subject, a pan, something passing through the frame.
    static let sequence: Int64 = 1_000
    /// The largest distance of the coarse fingerprints (`Fingerprint.coarseDistance`) within one scene.
    static let sceneCoarseDistance = 4

    /// Whether the scene itself changed between two photos taken in
    /// sequence: their fingerprints are beyond a burst's distance and even
    /// their coarsest layout differs. (Measured on real footage at five
    /// frames a second: a moving subject or a quick pan moves the
    /// fingerprint up to 26 bits but the coarse one at most 4 of its 15;
    /// a cut to another shot moves the coarse one 7 to 9.)
    static func sceneChanged(_ a: UInt64, _ b: UInt64) -> Bool {
        Fingerprint.distance(a, b) > burstDistance && Fingerprint.coarseDistance(a, b) > sceneCoarseDistance
    }

    /// The moments of `candidates` (blank photos belong to none), in time order.
    static func group(_ candidates: [PickCandidate]) -> [PickMoment] {
        let (photos, index) = arrays(candidates)
        let table = table(photos)
        return (0..<table.count).map { moment(table, $0, index) }
    }

    /// The pick: with a cap, `cap` moments spread over the span; without,
    /// every moment that has a best. Never a moment whose best is clearly
    /// blurred. In time order.
    static func choose(_ candidates: [PickCandidate], cap: Int?) -> PickOutcome {
        let (photos, index) = arrays(candidates)
        let choice = choose(photos, cap: cap)
        let table = choice.moments
        var outcome = PickOutcome()
        outcome.picked = choice.picked.map { moment(table, Int($0), index) }
        outcome.blank = (0..<photos.count).filter { photos.scores[$0].blank }.map { index[$0] }
        var picked = [Bool](repeating: false, count: table.count)
        for moment in choice.picked { picked[Int(moment)] = true }
        for moment in 0..<table.count where !picked[moment] {
            let members = table.members(of: moment).map { index[Int($0)] }
            guard table.best[moment] >= 0 else { outcome.rejected += members; continue }
            if photos.scores[Int(table.best[moment])].score.clearlyBlurred { outcome.blurred += members }
            else { outcome.beyondCap += members }
        }
        // A rejected frame stacked into a moment shown is stood for, not left out.
        (outcome.rejected, outcome.beyondCap, outcome.blurred) =
            (outcome.rejected.sorted(), outcome.beyondCap.sorted(), outcome.blurred.sorted())
        return outcome
    }

    /// Candidates as arrays by slot (the candidates by index), and each slot's index.
    private static func arrays(_ candidates: [PickCandidate]) -> (MomentPhotos, [Int]) {
        let sorted = candidates.sorted { $0.index < $1.index }
        return (MomentPhotos(times: sorted.map { $0.time ?? PhotoTable.none }, prints: sorted.map(\.fingerprint),
                             scores: sorted.map { PackedScore($0.score) }), sorted.map(\.index))
    }

    private static func moment(_ table: MomentTable, _ moment: Int, _ index: [Int]) -> PickMoment {
        PickMoment(members: table.members(of: moment).map { index[Int($0)] },
                   best: table.best[moment] < 0 ? nil : index[Int(table.best[moment])], key: table.keys[moment])
    }
}

/// The pick on arrays: the moments, the ones shown (in time order), and
/// how many photos were left out and why; what `-v` says of it.
struct MomentChoice: Sendable {
    let moments: MomentTable
    /// The moments shown, in time order.
    let picked: [Int32]
    /// Photos left out blank, or rated -1 (in moments of no best), or with
    /// moments whose best was clearly blurred, or with moments the cap left out.
    var blank = 0, rejected = 0, beyondCap = 0, blurred = 0
    /// Photos stacked into the moments shown.
    var stacked: Int { picked.reduce(0) { $0 + moments.size(of: Int($1)) - 1 } }
}

extension Moments {
    /// `choose(_:cap:)` on arrays.
    static func choose(_ photos: MomentPhotos, cap: Int?) -> MomentChoice {
        let moments = table(photos)
        func blurred(_ moment: Int32) -> Bool { photos.scores[Int(moments.best[Int(moment)])].score.clearlyBlurred }
        let shown = (0..<Int32(moments.count)).filter { moments.best[Int($0)] >= 0 }
        // A clearly blurred moment is no one's to see: never picked, cap or no cap.
        let sharp = shown.filter { !blurred($0) }
        var picked = spread(sharp, count: cap ?? sharp.count, keys: moments.keys)
        picked.sort { (moments.keys[Int($0)], moments.members(of: Int($0)).first!)
                          < (moments.keys[Int($1)], moments.members(of: Int($1)).first!) }
        var choice = MomentChoice(moments: moments, picked: picked)
        choice.blank = (0..<photos.count).reduce(0) { $0 + (photos.scores[$1].blank ? 1 : 0) }
        var taken = [Bool](repeating: false, count: moments.count)
        for moment in picked { taken[Int(moment)] = true }
        for moment in 0..<moments.count where !taken[moment] {
            let size = moments.size(of: moment)
            if moments.best[moment] < 0 { choice.rejected += size; continue }
            if blurred(Int32(moment)) { choice.blurred += size } else { choice.beyondCap += size }
        }
        return choice
    }

    /// `count` of `moments` (in time order) spread evenly over the span
    /// their keys cover: for each of `count` evenly spaced times, the
    /// nearest moment not yet taken (the earlier on a tie).
    static func spread(_ moments: [Int32], count: Int, keys: [Int64]) -> [Int32] {
        guard count < moments.count else { return moments }
        guard count > 0, let first = moments.first, let last = moments.last else { return [] }
        let (start, span) = (Double(keys[Int(first)]), Double(keys[Int(last)] - keys[Int(first)]))
        var taken = [Bool](repeating: false, count: moments.count)
        var chosen: [Int32] = []
        for slot in 0..<count {
            let target = count == 1 ? start + span / 2 : start + span * Double(slot) / Double(count - 1)
            var best: Int?
            for index in moments.indices where !taken[index] {
                let distance = abs(Double(keys[Int(moments[index])]) - target)
                if best == nil || distance < abs(Double(keys[Int(moments[best!])]) - target) { best = index }
            }
            taken[best!] = true
            chosen.append(moments[best!])
        }
        return chosen
    }
}
