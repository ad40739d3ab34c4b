import FileFacts
import Glibc
import Vips

/// When a photo was taken, and what said so: its own metadata (EXIF
/// DateTimeOriginal with OffsetTimeOriginal, a RAW's capture time), else a
/// date and time in its file's name (`NameDate`), else the file's
/// modification time. A date more than a day ahead of now is a clock that
/// was wrong, not a date: the next source is asked.
struct TakenTime: Sendable, Equatable {
    enum Source: String, Sendable {
        case metadata, name, mtime
    }

    /// The photo's own local time: what its day, month and year are.
    let local: LocalDateTime
    /// The real moment, milliseconds since the epoch: what orders photos.
    let instant: Int64
    let source: Source

    init(header: ImageHeader, path: PathName, stamp: FileStamp, now: Int64 = TakenTime.now()) {
        let latest = now + 86_400_000
        if let taken = header.takenAt, taken.instantMilliseconds <= latest {
            self.init(local: taken, source: .metadata)
        } else if let named = NameDate.parse(path.lastComponent), named.instantMilliseconds <= latest {
            self.init(local: named, source: .name)
        } else {
            self.init(modified: stamp)
        }
    }

    /// The modification time, in this machine's zone.
    init(modified stamp: FileStamp) {
        let milliseconds = stamp.modified / 1_000_000
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let local = LocalDateTime(epochSeconds: Int(seconds), millisecond: Int(milliseconds - seconds * 1000))
            ?? LocalDateTime(year: 1970, month: 1, day: 1, offsetMinutes: 0)!  // outside years 1800-9999
        (self.local, instant, source) = (local, milliseconds, .mtime)
    }

    init(local: LocalDateTime, source: Source) {
        (self.local, instant, self.source) = (local, local.instantMilliseconds, source)
    }

    /// The key `order` sorts a photo taken at this time and stamped
    /// `stamp` by (nil: the scan order alone).
    func key(_ order: ImageOrder, stamp: FileStamp) -> Int64? {
        switch order {
        case .name: nil
        case .taken: instant
        case .mtime: stamp.modified
        }
    }

    /// `--pick`'s time: the photo's own (its metadata's or its name's), nil
    /// where only its file's modification time says.
    var pickTime: Int64? { source == .mtime ? nil : instant }

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}

/// An image that passed its header checks in a header pass over the whole
/// input, its file let go (reopened only if it is used), with what orders
/// and groups it.
struct DatedImage: Sendable {
    let image: ChosenImage
    /// Its place in the scan (ties keep it).
    let scanIndex: Int
    let taken: TakenTime

    /// The key `order` sorts by (nil: the scan order alone).
    func key(_ order: ImageOrder) -> Int64? { taken.key(order, stamp: image.stamp) }
}

extension DatedImage {
    init(_ accepted: AcceptedImage, scanIndex: Int, taken: TakenTime) {
        image = ChosenImage(path: accepted.path, header: accepted.header, stamp: accepted.file.stamp,
                            partners: accepted.partners, sidecars: accepted.sidecars)
        self.scanIndex = scanIndex
        self.taken = taken
    }
}

extension Array where Element == DatedImage {
    /// Sorted by `order`, ties by the scan order; `reverse` turns the
    /// whole order round.
    /// The keys and places are sorted, not the images: one copy of the
    /// images is made, however many (a header pass of 50,000 photos held
    /// four before).
    func sorted(by order: ImageOrder, reverse: Bool) -> [DatedImage] {
        sortedIndices(by: order, reverse: reverse).map { self[$0] }
    }

    /// Where each image of the order is (`sorted(by:reverse:)`'s).
    func sortedIndices(by order: ImageOrder, reverse: Bool) -> [Int] {
        var keyed = indices.map { (key: self[$0].key(order) ?? 0, scan: self[$0].scanIndex, index: $0) }
        keyed.sort { ($0.key, $0.scan) < ($1.key, $1.scan) }
        if reverse { keyed.reverse() }
        return keyed.map(\.index)
    }
}
