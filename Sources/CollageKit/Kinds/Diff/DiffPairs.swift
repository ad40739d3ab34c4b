/// One pair of `--diff` before it is compared: the current image and the
/// baseline's at the same path below their roots, either of which may be
/// missing.
struct DiffPair: Sendable, Equatable {
    /// The path below the roots: the pair's name.
    let relative: PathName
    /// Where the current image is (or would be, for a removed one).
    let current: PathName
    /// Where the baseline's is (or would be, for an added one).
    let baseline: PathName
    let inCurrent: Bool
    let inBaseline: Bool
    /// The baseline's accepted alternatives (`NAME~K.EXT` beside it), in byte order.
    var alternatives: [PathName] = []
}

/// `--alternative`'s names: `NAME~K.EXT` beside `NAME.EXT` in BASELINE is
/// an accepted alternative of it (`NAME~K` when it has no extension).
enum AlternativeNames {
    /// The `number`-th alternative's path beside `path`.
    static func alternative(of path: PathName, _ number: Int) -> PathName {
        let name = path.lastComponent
        let mark = Array("~\(number)".utf8)
        let renamed: [UInt8] = if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex {
            Array(name[..<dot]) + mark + Array(name[dot...])
        } else {
            name + mark
        }
        return PathName(bytes: Array(path.bytes.dropLast(name.count)) + renamed)
    }

    /// The path of the image `path` is an alternative of, when its name is
    /// an alternative's (`STEM~K.EXT`, K digits).
    static func original(of path: PathName) -> PathName? {
        let name = path.lastComponent
        let dot = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > name.startIndex ? $0 : nil } ?? name.endIndex
        let stem = name[..<dot]
        guard let tilde = stem.lastIndex(of: UInt8(ascii: "~")), tilde > stem.startIndex else { return nil }
        let digits = stem[(tilde + 1)...]
        guard !digits.isEmpty, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return PathName(bytes: Array(path.bytes.dropLast(name.count)) + Array(stem[..<tilde]) + Array(name[dot...]))
    }
}

/// The pairs of a `--diff` run: INPUT's images (each INPUT folder walked
/// as any run walks it; a file or a list's path taken as given, relative)
/// against BASELINE's by their path below their root, as bytes. BASELINE
/// is walked with the same rules; when every INPUT is a folder, an image
/// only in BASELINE is a pair too (`removed`). Pairs come in the walk's
/// order of their paths below the roots (`PairOrder`), whatever the order
/// the INPUTs were named in; a path that two INPUTs share is paired once,
/// from the first. BASELINE a file and one INPUT file (`--diff A.png
/// B.png`): the two are one pair, whatever their names.
struct DiffPairing {
    let inputs: [Input]
    let baseline: PathName
    let followLinks: Bool
    let nulSeparated: Bool
    let rules: ScanRules

    /// The pairs, and every file walked with the stamp the walk took of it,
    /// in the order walked (INPUTs, then BASELINE: what `--skip-unchanged`
    /// checks again).
    func pairs(shouldStop: @escaping () -> Bool,
               report: @escaping (PipelineEvent) -> Void) -> (pairs: [DiffPair], walked: [InputRecord]) {
        var current: [PathName: PathName] = [:]
        var walked: [InputRecord] = []
        for input in inputs {
            var walk = InputWalk(inputs: [input], followLinks: followLinks, nulSeparated: nulSeparated,
                                 rules: rules, shouldStop: shouldStop, report: report)
            let root: PathName? = if case .path(let path) = input, path.isDirectory { path } else { nil }
            while let file = walk.next() {
                walked.append(InputRecord(path: file.path, stamp: file.currentStamp, listed: file.sidecars))
                let relative = root.map { Self.below($0, file.path) } ?? Self.relative(file.path)
                if current[relative] == nil { current[relative] = file.path }
            }
        }
        var baselineFiles: [PathName: PathName] = [:]
        var walk = InputWalk(inputs: [.path(baseline)], followLinks: followLinks, nulSeparated: false, rules: rules,
                             shouldStop: shouldStop, report: report)
        while let file = walk.next() {
            walked.append(InputRecord(path: file.path, stamp: file.currentStamp, listed: file.sidecars))
            baselineFiles[Self.below(baseline, file.path)] = file.path
        }
        // NAME~K.EXT beside NAME.EXT (in BASELINE, or a current image's name): an alternative, not a pair.
        var alternatives: [PathName: [PathName]] = [:]
        for (relative, path) in baselineFiles {
            guard let original = AlternativeNames.original(of: relative),
                  baselineFiles[original] != nil || current[original] != nil else { continue }
            alternatives[original, default: []].append(path)
            baselineFiles[relative] = nil
        }
        if Self.twoFiles(inputs, baseline: baseline), !baseline.isDirectory {
            let pairs = current.map { relative, path in
                DiffPair(relative: relative, current: path, baseline: baseline, inCurrent: true, inBaseline: true)
            }
            return (pairs, walked)
        }
        let folders = inputs.allSatisfy { if case .path(let path) = $0 { path.isDirectory } else { false } }
        var pairs = current.map { relative, path in
            DiffPair(relative: relative, current: path, baseline: baseline.appending(relative.bytes),
                     inCurrent: true, inBaseline: baselineFiles[relative] != nil,
                     alternatives: (alternatives[relative] ?? []).sorted())
        }
        if folders, case .path(let root) = inputs.first {
            for (relative, path) in baselineFiles where current[relative] == nil {
                pairs.append(DiffPair(relative: relative, current: root.appending(relative.bytes), baseline: path,
                                      inCurrent: false, inBaseline: true))
            }
        }
        return (pairs.sorted { PairOrder.precedes($0.relative.bytes, $1.relative.bytes) }, walked)
    }

    /// The two-file form's inputs: one INPUT, a path that is not a folder.
    static func twoFiles(_ inputs: [Input], baseline: PathName) -> Bool {
        guard inputs.count == 1, case .path(let path) = inputs[0] else { return false }
        return !path.isDirectory
    }

    /// `path`'s bytes below `root` (a path the walk of `root` emitted).
    static func below(_ root: PathName, _ path: PathName) -> PathName {
        guard path.bytes.starts(with: root.bytes) else { return relative(path) }
        return relative(PathName(bytes: Array(path.bytes.dropFirst(root.bytes.count))))
    }

    /// A path as given, made relative: leading "/" and "./" dropped.
    static func relative(_ path: PathName) -> PathName {
        var bytes = path.bytes[...]
        while true {
            if bytes.first == UInt8(ascii: "/") { bytes = bytes.dropFirst(); continue }
            if bytes.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) { bytes = bytes.dropFirst(2); continue }
            return PathName(bytes: Array(bytes))
        }
    }
}
