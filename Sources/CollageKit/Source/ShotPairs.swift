import FileFacts
import Vips

/// Pairs in one folder's names: a RAW photo, or (with `--video`) a Live
/// Photo's movie, beside a JPEG, HEIC or HEIF of the same stem (any case:
/// `IMG_0001.CR2` and `img_0001.jpg`) is one shot, shown by the still. The
/// still keeps its place among the names; the RAW and the movie become its
/// partners (RAW first), which the walk does not emit on their own: they
/// stand in for the still if it cannot be read. With two stills of one
/// stem, the first takes the partners and the other is a photo of its own.
/// Works on one folder's listing, or one run of names read from standard
/// input, and holds nothing else.
struct ShotPairs {
    /// For each still (by index) that has partners: their indices, RAW
    /// photos first, then movies, each in the order given.
    private(set) var partners: [Int: [Int]] = [:]
    /// The indices that are a still's partner.
    private(set) var secondary: Set<Int> = []

    init() {}

    /// `names`: the last components, in the order they will be emitted;
    /// those in `folders` pair with nothing.
    init(names: [[UInt8]], rules: ScanRules, folders: Set<[UInt8]> = []) {
        var pairable: [(index: Int, stem: [UInt8], movie: Bool)] = []
        for (index, name) in names.enumerated() where !folders.contains(name) {
            switch ScanRules.kind(of: name) {
            case .raw where rules.raw != .skip: pairable.append((index, Self.stem(name), false))
            case .video where rules.video: pairable.append((index, Self.stem(name), true))
            default: break
            }
        }
        guard !pairable.isEmpty else { return }  // no RAW, no movie: nothing to pair
        var stills: [[UInt8]: Int] = [:]
        for (index, name) in names.enumerated()
        where !folders.contains(name) && FileKind.stillExtensions.contains(ScanRules.lowercasedExtension(name)) {
            let stem = Self.stem(name)
            if stills[stem] == nil { stills[stem] = index }
        }
        for entry in pairable.filter({ !$0.movie }) + pairable.filter(\.movie) {
            guard let still = stills[entry.stem] else { continue }
            partners[still, default: []].append(entry.index)
            secondary.insert(entry.index)
        }
    }

    /// The name without its extension, lower case (ASCII).
    static func stem(_ name: [UInt8]) -> [UInt8] {
        let end = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > name.startIndex ? $0 : nil } ?? name.endIndex
        return name[..<end].map(asciiLowercased)
    }
}

/// Files named on standard input (or on the command line) one after
/// another, held while they come from the same folder so that a pair among
/// them is found: a run of consecutive paths of one folder is one listing.
/// Only a name that may pair (a JPEG, HEIC or HEIF, a RAW, a movie with
/// `--video`) starts a run, and what follows it in the same folder waits
/// with it, so the order is kept; the run is let go, with its pairs, when
/// a path of another folder, a folder to walk, or the end of the list
/// comes. Other files go on at once when nothing waits: a list of PNG
/// screenshots fed one line at a time is never held. Pairs split by a path
/// of another folder are not found: that would need the whole list.
struct ConsecutiveShots {
    private var pending: [InputFile] = []
    private var folder: [UInt8]?
    private var ready: [InputFile] = []
    private var readyIndex = 0
    let rules: ScanRules

    init(rules: ScanRules) { self.rules = rules }

    /// The next file let go, if any.
    mutating func pop() -> InputFile? {
        guard readyIndex < ready.count else { return nil }
        defer {
            readyIndex += 1
            if readyIndex == ready.count { (ready, readyIndex) = ([], 0) }
        }
        return ready[readyIndex]
    }

    mutating func add(_ file: InputFile) {
        let directory = file.path.directory.bytes
        if folder != directory { flush() }
        guard !pending.isEmpty || mayPair(file.path.lastComponent) else {
            ready.append(file)
            return
        }
        folder = directory
        pending.append(file)
    }

    private func mayPair(_ name: [UInt8]) -> Bool {
        switch ScanRules.kind(of: name) {
        case .raw: return rules.raw != .skip
        case .video: return rules.video
        default: return FileKind.stillExtensions.contains(ScanRules.lowercasedExtension(name))
        }
    }

    /// Lets go of the files held.
    mutating func flush() {
        defer { (pending, folder) = ([], nil) }
        guard !pending.isEmpty else { return }
        let pairs = ShotPairs(names: pending.map(\.path.lastComponent), rules: rules)
        for (index, file) in pending.enumerated() where !pairs.secondary.contains(index) {
            var file = file
            file.partners = (pairs.partners[index] ?? []).map { pending[$0].path }
            ready.append(file)
        }
    }
}
