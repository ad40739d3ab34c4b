@testable import CollageKit

/// The moments as they were chosen before the pick chose on arrays: a
/// list of candidates, copied, sorted, grouped into arrays of candidates
/// and looked up through dictionaries. `PickFlatTests` checks that the
/// arrays give the same answer on candidates this makes up.
enum ListMoments {
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
        var previous: (photo: PickCandidate, group: Int)?
        for (position, photo) in ordered.enumerated() where !photo.score.blank {
            var chosen: (group: Int, distance: Int)?
            // In sequence a second or less after the photo before, the same scene: its moment.
            if dated, let previous, photo.time! - previous.photo.time! <= Moments.sequence,
               !Moments.sceneChanged(previous.photo.fingerprint, photo.fingerprint) {
                chosen = (previous.group, 0)
            }
            for group in groups.indices.suffix(Moments.recent).reversed() where chosen == nil || chosen!.distance > 0 {
                for member in groups[group].suffix(16) {
                    let distance = Fingerprint.distance(member.fingerprint, photo.fingerprint)
                    let near: Bool
                    if dated { near = abs(photo.time! - member.time!) <= Moments.burst } else {
                        near = ordered.indices.contains(position - 1) && ordered[position - 1].index == member.index
                    }
                    guard distance <= (near ? Moments.burstDistance : Moments.sameDistance) else { continue }
                    if chosen == nil || distance < chosen!.distance { chosen = (group, distance) }
                }
            }
            // The same scene again, any time before: found through the index, not by comparing with every moment.
            if chosen == nil { chosen = same.nearest(photo.fingerprint, within: Moments.sameDistance) }
            if let chosen { groups[chosen.group].append(photo) } else { groups.append([photo]) }
            same.insert(photo.fingerprint, group: chosen?.group ?? groups.count - 1)
            previous = (photo, chosen?.group ?? groups.count - 1)
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

    /// The pick: with a cap, `cap` moments spread over the span; without,
    /// every moment that has a best; never a clearly blurred one. In time order.
    static func choose(_ candidates: [PickCandidate], cap: Int?) -> PickOutcome {
        var outcome = PickOutcome()
        let byIndex = Dictionary(uniqueKeysWithValues: candidates.map { ($0.index, $0) })
        outcome.blank = candidates.filter(\.score.blank).map(\.index).sorted()
        let moments = group(candidates)
        let shown = moments.filter { $0.best != nil }
        outcome.rejected = moments.filter { $0.best == nil }.flatMap(\.members).sorted()
        let sharp = shown.filter { !byIndex[$0.best!]!.score.clearlyBlurred }
        var picked = spread(sharp, count: cap ?? sharp.count)
        picked.sort { ($0.key, $0.members[0]) < ($1.key, $1.members[0]) }
        outcome.picked = picked
        let taken = Set(picked.map { $0.members[0] })
        let left = shown.filter { !taken.contains($0.members[0]) }
        outcome.beyondCap = left.filter { !byIndex[$0.best!]!.score.clearlyBlurred }.flatMap(\.members).sorted()
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
