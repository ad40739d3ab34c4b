/// Photos cut into groups by when they were taken (`--group-by`): by the
/// calendar day, month or year of their own local time, or into events,
/// where a pause longer than the gap starts a new group. Each group is
/// named for its files (`2026-08-14`, `2026-08`, `2026`; an event by its
/// first photo, `2026-08-14T15.30`); names that would repeat (two events
/// starting in the same minute in different zones) get `-2`, `-3`.
struct TakenGroup: Sendable {
    let name: String
    /// In the order they are placed.
    let images: [DatedImage]
}

enum TakenGroups {
    /// The groups of `images`, in the order of their first photo taken
    /// (newest first with `reverse`); in each, the images in `order`.
    static func cut(_ images: [DatedImage], by groupBy: GroupBy, order: ImageOrder, reverse: Bool) -> [TakenGroup] {
        let byTime = images.sorted(by: .taken, reverse: false)
        var groups: [(name: String, images: [DatedImage])] = []
        var previous: DatedImage?
        for image in byTime {
            let name = self.name(image, groupBy)
            let starts: Bool
            switch groupBy {
            case .gap(let gap):
                starts = previous.map { image.taken.instant - $0.taken.instant > Int64(gap.seconds) * 1000 } ?? true
            default:
                starts = groups.last?.name != name
            }
            if starts || groups.isEmpty { groups.append((name, [image])) } else { groups[groups.count - 1].images.append(image) }
            previous = image
        }
        if case .gap = groupBy {} else { groups = merged(groups) }
        var seen: [String: Int] = [:]
        var named: [TakenGroup] = groups.map { group in
            let count = (seen[group.name] ?? 0) + 1
            seen[group.name] = count
            return TakenGroup(name: count == 1 ? group.name : "\(group.name)-\(count)",
                              images: group.images.sorted(by: order, reverse: reverse))
        }
        if reverse { named.reverse() }
        return named
    }

    /// Calendar groups by local time: photos of one day in two zones may
    /// interleave in real time with another day's, yet make one group.
    private static func merged(_ groups: [(name: String, images: [DatedImage])]) -> [(name: String, images: [DatedImage])] {
        var index: [String: Int] = [:]
        var merged: [(name: String, images: [DatedImage])] = []
        for group in groups {
            if let at = index[group.name] { merged[at].images += group.images; continue }
            index[group.name] = merged.count
            merged.append(group)
        }
        return merged
    }

    static func name(_ image: DatedImage, _ groupBy: GroupBy) -> String {
        let local = image.taken.local
        switch groupBy {
        case .day: return local.dayName
        case .month: return local.monthName
        case .year: return local.yearName
        case .gap: return local.minuteName
        }
    }
}
