import Locking

/// `--flag`: checks each placed tile's signature, in the order the run
/// places them, against the images placed before it. One checker serves a
/// whole job (every folder of `--per-folder`, every pass of `--watch`), so a
/// duplicate across folders is found too: the job makes one and hands it
/// to each run.
final class Flagger: Sendable {
    let kinds: Set<FlagKind>
    /// Hashes within `threshold` bits are the same look.
    static let threshold = 4
    private let seen = Locked(HashIndex())

    /// nil when there is nothing to flag.
    init?(kinds: Set<FlagKind>) {
        guard !kinds.isEmpty else { return nil }
        self.kinds = kinds
    }

    /// Each tile's flags, the tiles placed in this order after every image checked before.
    func check(_ tiles: [PlacedTile]) -> [[ImageFlag]] {
        tiles.map { tile in
            guard let signature = tile.signature else { return [] }
            var flags: [ImageFlag] = []
            if kinds.contains(.blank), signature.blank {
                flags.append(ImageFlag(path: tile.path, reason: .blank, of: nil))
            }
            // A flat tile's hash says nothing of its look (any two flat
            // colours hash alike): it is neither a duplicate nor an original.
            guard kinds.contains(.duplicate), !signature.blank, let hash = signature.hash else { return flags }
            let original = seen.withLock { index in
                defer { index.insert(hash, tile.path) }
                return index.nearest(hash, within: Self.threshold, excluding: tile.path)
            }
            if let original { flags.append(ImageFlag(path: tile.path, reason: .duplicate, of: original)) }
            return flags
        }
    }
}

/// Hashes seen, found by Hamming distance without comparing against every
/// one: two hashes within 4 bits agree exactly on at least one of 5 slices
/// of the 64 bits (pigeonhole), so each slice's value indexes the hashes
/// holding it, and only those are compared.
struct HashIndex {
    private static let slices: [(shift: UInt64, mask: UInt64)] = [
        (0, 0x1FFF), (13, 0x1FFF), (26, 0x1FFF), (39, 0x1FFF), (52, 0xFFF),
    ]
    private var hashes: [(hash: UInt64, path: PathName)] = []
    private var buckets: [[UInt64: [Int]]] = Array(repeating: [:], count: 5)

    /// The earliest image whose hash is within `bits` of `hash`, other than
    /// `path` itself (a `--watch` pass sees the same image again).
    func nearest(_ hash: UInt64, within bits: Int, excluding path: PathName) -> PathName? {
        precondition(bits < Self.slices.count, "the slices find distances below their number only")
        var best: Int?
        for (slice, (shift, mask)) in Self.slices.enumerated() {
            for index in buckets[slice][(hash >> shift) & mask] ?? [] where index < (best ?? Int.max) {
                let seen = hashes[index]
                if seen.path != path, TileSignature.distance(seen.hash, hash) <= bits { best = index }
            }
        }
        return best.map { hashes[$0].path }
    }

    mutating func insert(_ hash: UInt64, _ path: PathName) {
        let index = hashes.count
        hashes.append((hash, path))
        for (slice, (shift, mask)) in Self.slices.enumerated() {
            buckets[slice][(hash >> shift) & mask, default: []].append(index)
        }
    }
}
