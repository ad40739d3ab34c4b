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
    /// Of those, moments whose best was clearly blurred.
    var blurred: [Int] = []
}

/// The pick's choices, as pure functions of the candidates: deterministic,
/// ties to the input order.
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

    /// The candidates' order: by time where every one has a date, else the input order.
    static func ordered(_ candidates: [PickCandidate]) -> [PickCandidate] {
        guard candidates.allSatisfy({ $0.time != nil }) else { return candidates.sorted { $0.index < $1.index } }
        return candidates.sorted { ($0.time!, $0.index) < ($1.time!, $1.index) }
    }

    /// The moments of `candidates` (blank photos belong to none), in time order.
    static func group(_ candidates: [PickCandidate]) -> [PickMoment] {
        let ordered = ordered(candidates)
        let dated = ordered.allSatisfy { $0.time != nil }
        var groups: [[PickCandidate]] = []
        var same = SameLookIndex()
        for (position, photo) in ordered.enumerated() where !photo.score.blank {
            var chosen: (group: Int, distance: Int)?
            for group in groups.indices.suffix(recent).reversed() {
                for member in groups[group].suffix(16) {
                    let distance = Fingerprint.distance(member.fingerprint, photo.fingerprint)
                    let near: Bool
                    if dated { near = abs(photo.time! - member.time!) <= burst } else {
                        near = ordered.indices.contains(position - 1) && ordered[position - 1].index == member.index
                    }
                    guard distance <= (near ? burstDistance : sameDistance) else { continue }
                    if chosen == nil || distance < chosen!.distance { chosen = (group, distance) }
                }
            }
            // The same scene again, any time before: found through the index, not by comparing with every moment.
            if chosen == nil { chosen = same.nearest(photo.fingerprint, within: sameDistance) }
            if let chosen { groups[chosen.group].append(photo) } else { groups.append([photo]) }
            same.insert(photo.fingerprint, group: chosen?.group ?? groups.count - 1)
        }
        let position = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($0.element.index, $0.offset) })
        return groups.map { members in
            let best = members.filter { !$0.score.excluded }.min { a, b in
                a.score.ranks(before: b.score) || (!b.score.ranks(before: a.score) && a.index < b.index)
            }
            let keyed = best ?? members[0]
            return PickMoment(members: members.map(\.index), best: best?.index,
                              key: dated ? keyed.time! : Int64(position[keyed.index]!))
        }
    }

    /// The pick: with a cap, `cap` moments spread over the span, never a
    /// clearly blurred one while a sharp one is left; without, every moment
    /// that has a best. In time order.
    static func choose(_ candidates: [PickCandidate], cap: Int?) -> PickOutcome {
        var outcome = PickOutcome()
        let byIndex = Dictionary(uniqueKeysWithValues: candidates.map { ($0.index, $0) })
        outcome.blank = candidates.filter(\.score.blank).map(\.index).sorted()
        let moments = group(candidates)
        let shown = moments.filter { $0.best != nil }
        outcome.rejected = moments.filter { $0.best == nil }.flatMap(\.members).sorted()
        let cap = cap ?? shown.count
        let sharp = shown.filter { !byIndex[$0.best!]!.score.clearlyBlurred }
        let blurred = shown.filter { byIndex[$0.best!]!.score.clearlyBlurred }
        var picked = spread(sharp, count: cap)
        if picked.count < cap { picked += spread(blurred, count: cap - picked.count) }
        picked.sort { ($0.key, $0.members[0]) < ($1.key, $1.members[0]) }
        outcome.picked = picked
        let taken = Set(picked.map { $0.members[0] })
        let left = shown.filter { !taken.contains($0.members[0]) }
        outcome.beyondCap = left.flatMap(\.members).sorted()
        outcome.blurred = left.filter { byIndex[$0.best!]!.score.clearlyBlurred }.flatMap(\.members).sorted()
        // A rejected frame stacked into a moment shown is stood for, not left out.
        return outcome
    }

    /// `count` of `moments` (in time order) spread evenly over the span
    /// their keys cover: for each of `count` evenly spaced times, the
    /// nearest moment not yet taken (the earlier on a tie).
    static func spread(_ moments: [PickMoment], count: Int) -> [PickMoment] {
        guard count < moments.count else { return moments }
        guard count > 0, let first = moments.first?.key, let last = moments.last?.key else { return [] }
        var taken = [Bool](repeating: false, count: moments.count)
        var chosen: [PickMoment] = []
        let span = Double(last - first)
        for slot in 0..<count {
            let target = count == 1 ? Double(first) + span / 2
                                    : Double(first) + span * Double(slot) / Double(count - 1)
            var best: Int?
            for index in moments.indices where !taken[index] {
                let distance = abs(Double(moments[index].key) - target)
                if best == nil || distance < abs(Double(moments[best!].key) - target) { best = index }
            }
            taken[best!] = true
            chosen.append(moments[best!])
        }
        return chosen
    }
}

/// The fingerprints seen so far, found by one of nine parts (7 or 8 bits):
/// two fingerprints at most 8 bits apart agree on at least one part, so
/// the photos to compare with are the few that share a part with it.
struct SameLookIndex {
    private var buckets = [[UInt64: [(print: UInt64, group: Int)]]](repeating: [:], count: 9)
    /// The most fingerprints one bucket holds (a bucket of flat looks could grow without end).
    static let bucketLimit = 64

    private static func part(_ print: UInt64, _ index: Int) -> UInt64 {
        let width: UInt64 = index == 8 ? 8 : 7
        return (print >> UInt64(7 * index)) & ((1 << width) - 1)
    }

    mutating func insert(_ print: UInt64, group: Int) {
        for index in 0..<9 {
            let key = Self.part(print, index)
            if buckets[index][key, default: []].count < Self.bucketLimit { buckets[index][key, default: []].append((print, group)) }
        }
    }

    /// The group of the nearest fingerprint within `limit` bits (at most 8); the earliest group on a tie.
    func nearest(_ print: UInt64, within limit: Int) -> (group: Int, distance: Int)? {
        precondition(limit <= 8, "nine parts find every fingerprint at most 8 bits away")
        var best: (group: Int, distance: Int)?
        for index in 0..<9 {
            for entry in buckets[index][Self.part(print, index)] ?? [] {
                let distance = Fingerprint.distance(entry.print, print)
                guard distance <= limit else { continue }
                if best == nil || (distance, entry.group) < (best!.distance, best!.group) { best = (entry.group, distance) }
            }
        }
        return best
    }
}
