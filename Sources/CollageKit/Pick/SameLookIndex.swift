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
