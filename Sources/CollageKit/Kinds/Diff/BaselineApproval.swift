import Glibc

/// `--approve`: a pair's current image made its baseline, one file at a
/// time and each atomically: the bytes go to a temporary file in the
/// baseline's folder, which is flushed and renamed over it (`AtomicWriter`),
/// the folders below BASELINE made as needed (an `added` image); a
/// `removed` image's baseline is unlinked. A run stopped between two files
/// leaves each file old or new, and a rerun approves the rest (what was
/// approved compares `unchanged`). With `--alternative`, the old baseline
/// is first linked as `NAME~K.EXT` beside it (the lowest K free; one that
/// already holds the same bytes, from a run stopped half way, is kept).
struct BaselineApproval {
    /// BASELINE: the folder (or, `--diff A.png B.png`, the file) compared with.
    let root: PathName
    let alternative: Bool
    private let writer = AtomicWriter()

    init(root: PathName, alternative: Bool) {
        (self.root, self.alternative) = (root, alternative)
    }

    /// The largest image approved: read whole, as the comparison did.
    static let limit = 1 << 31

    /// Makes `pair`'s current image its baseline; what was done.
    func approve(_ pair: ComparedPair) throws(OutputError) -> ApprovedPair {
        guard case .approved(let approved) = try approve(pair, alternative: alternative, seen: nil) else {
            preconditionFailure("nothing is stale without a digest to compare")
        }
        return approved
    }

    /// What `approve(_:alternative:seen:)` did.
    enum Outcome: Equatable {
        case approved(ApprovedPair)
        /// The current file is not the one the reviewer saw: its digest
        /// now (nil: there is none), and nothing was changed.
        case stale(String?)
    }

    /// Makes `pair`'s current image its baseline, keeping the old one as
    /// an alternative when `alternative`; with `seen` (`--approve-from`),
    /// only when the current file still has that SHA-256 (`.some(nil)`: a
    /// removed pair, only while there is still no current file). The
    /// digest is of the very bytes written, read once.
    func approve(_ pair: ComparedPair, alternative: Bool, seen: String??) throws(OutputError) -> Outcome {
        let target = pair.baseline
        if pair.status == .removed {
            if let seen {
                var info = stat()
                if pair.path.withCString({ $0.map { lstat($0, &info) } ?? -1 }) == 0 || errno != ENOENT {
                    return .stale(SHA256.hex(ofFile: pair.path))
                }
                if seen != nil { return .stale(nil) }
            }
            guard target.withCString({ $0.map { unlink($0) } ?? -1 }) == 0 || errno == ENOENT else {
                throw OutputError(code: .cannotCreate, path: target, message: "cannot remove the baseline: " + systemError(errno))
            }
            return .approved(ApprovedPair(path: pair.path, baseline: target, status: pair.status, alternative: nil))
        }
        let bytes: [UInt8]
        switch FileContents.read(pair.path, limit: Self.limit) {
        case .success(let read): bytes = read
        case .failure(let failure):
            throw OutputError(code: .ioError, path: pair.path, message: "cannot read the current image: \(failure)")
        }
        if let seen {
            let digest = SHA256.hex(bytes)
            if digest != seen { return .stale(digest) }
        }
        if root.bytes != target.bytes { try DiffPictures.makeFolders(below: root, to: target.directory) }
        let kept = alternative && pair.status != .added ? try keep(target) : nil
        _ = try writer.write(bytes, to: target)
        return .approved(ApprovedPair(path: pair.path, baseline: target, status: pair.status, alternative: kept))
    }

    /// `--alternative`: the old baseline linked as `NAME~K.EXT`.
    private func keep(_ target: PathName) throws(OutputError) -> PathName? {
        guard case .success(let old) = FileContents.read(target, limit: Self.limit) else { return nil }
        var number = 1
        while true {
            let name = AlternativeNames.alternative(of: target, number)
            if name.withCString({ $0.map { new in target.withCString { $0.map { link($0, new) } ?? -1 } } ?? -1 }) == 0 {
                return name
            }
            guard errno == EEXIST else {
                throw OutputError(code: .cannotCreate, path: name, message: "cannot keep the old baseline: " + systemError(errno))
            }
            if case .success(let there) = FileContents.read(name, limit: Self.limit), there == old { return name }
            number += 1
        }
    }
}
