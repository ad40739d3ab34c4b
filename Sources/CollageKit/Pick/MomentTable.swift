/// What the moments are chosen from: the photos looked at, by their slot
/// (their place in the input), in arrays as the pick keeps them: a time
/// (`PhotoTable.none`: no date), a fingerprint and a score each; a slot
/// whose look failed has no score and belongs to no moment.
struct MomentPhotos: Sendable {
    let times: [Int64]
    let prints: [UInt64]
    let scores: [PackedScore]

    var count: Int { scores.count }
}

/// The moments of a pick, in time order, over compact arrays (no record
/// per photo, no dictionary): each moment's members (slots, in time
/// order) side by side in one array, its best (-1: none, every member
/// blank or rejected) and its key (its best's time, else its first's; the
/// input order where no date is).
struct MomentTable: Sendable {
    /// Moment m's members are `members[starts[m]..<starts[m + 1]]`.
    let members: [Int32]
    let starts: [Int]
    let best: [Int32]
    let keys: [Int64]

    var count: Int { best.count }

    func members(of moment: Int) -> ArraySlice<Int32> { members[starts[moment]..<starts[moment + 1]] }
    func size(of moment: Int) -> Int { starts[moment + 1] - starts[moment] }
}

extension Moments {
    /// The slots looked at, in the pick's order: by time where every one
    /// has a date, else the input order; and whether every one had a date.
    static func order(_ photos: MomentPhotos) -> (slots: [Int32], dated: Bool) {
        var slots: [Int32] = []
        var dated = true
        for slot in 0..<photos.count where photos.scores[slot].looked {
            slots.append(Int32(slot))
            if photos.times[slot] == PhotoTable.none { dated = false }
        }
        if dated { slots.sort { (photos.times[Int($0)], $0) < (photos.times[Int($1)], $1) } }
        return (slots, dated)
    }

    /// The moments of `photos` (blank photos belong to none), in time order
    /// (`group(_:)`'s, on arrays).
    static func table(_ photos: MomentPhotos) -> MomentTable {
        let (order, dated) = order(photos)
        // Each photo's moment and the member before it in its moment; each
        // moment's last member and size, as the photos are grouped.
        var moment = [Int32](repeating: -1, count: photos.count)
        var before = [Int32](repeating: -1, count: photos.count)
        var last: [Int32] = [], sizes: [Int32] = []
        var same = SameLookIndex()
        // The photo before in time order (blank ones are in no moment).
        var previous: Int32 = -1
        for (position, slot) in order.enumerated() where !photos.scores[Int(slot)].blank {
            let print = photos.prints[Int(slot)], time = photos.times[Int(slot)]
            var chosen: (group: Int, distance: Int)?
            // Taken in sequence a second or less after the photo before: its moment, unless the scene changed.
            let inSequence = dated && previous >= 0 && time - photos.times[Int(previous)] <= sequence
                && !sceneChanged(photos.prints[Int(previous)], print)
            if inSequence { chosen = (Int(moment[Int(previous)]), 0) }
            for group in (max(0, last.count - recent)..<last.count).reversed() where !inSequence {
                var member = last[group], seen = 0
                while member >= 0 && seen < 16 {
                    let distance = Fingerprint.distance(photos.prints[Int(member)], print)
                    let near = dated ? abs(time - photos.times[Int(member)]) <= burst
                                     : position > 0 && order[position - 1] == member
                    if distance <= (near ? burstDistance : sameDistance),
                       chosen == nil || distance < chosen!.distance { chosen = (group, distance) }
                    (member, seen) = (before[Int(member)], seen + 1)
                }
            }
            // The same scene again, any time before: found through the index, not by comparing with every moment.
            if chosen == nil { chosen = same.nearest(print, within: sameDistance) }
            let group = chosen?.group ?? last.count
            if group == last.count { last.append(-1); sizes.append(0) }
            (moment[Int(slot)], before[Int(slot)], last[group]) = (Int32(group), last[group], slot)
            sizes[group] += 1
            same.insert(print, group: group)
            previous = slot
        }
        before = []
        last = []
        var starts = [Int](repeating: 0, count: sizes.count + 1)
        for group in sizes.indices { starts[group + 1] = starts[group] + Int(sizes[group]) }
        sizes = []
        var members = [Int32](repeating: 0, count: starts.last!), next = starts
        for slot in order where moment[Int(slot)] >= 0 {
            let group = Int(moment[Int(slot)])
            members[next[group]] = slot
            next[group] += 1
        }
        var best = [Int32](repeating: -1, count: starts.count - 1), keys = [Int64](repeating: 0, count: best.count)
        for group in best.indices {
            // `min(by:)`'s way: a later member replaces the best only when it ranks before it.
            for member in members[starts[group]..<starts[group + 1]] where !photos.scores[Int(member)].excluded {
                if best[group] < 0 { best[group] = member; continue }
                let a = photos.scores[Int(member)].score, b = photos.scores[Int(best[group])].score
                if a.ranks(before: b) || (!b.ranks(before: a) && member < best[group]) { best[group] = member }
            }
            let keyed = best[group] >= 0 ? best[group] : members[starts[group]]
            // Without dates the order is the slots' own: a slot's place in it is found by halving.
            keys[group] = dated ? photos.times[Int(keyed)] : Int64(Self.place(of: keyed, in: order))
        }
        return MomentTable(members: members, starts: starts, best: best, keys: keys)
    }

    private static func place(of slot: Int32, in ascending: [Int32]) -> Int {
        var (low, high) = (0, ascending.count)
        while low < high {
            let middle = (low + high) / 2
            if ascending[middle] < slot { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
