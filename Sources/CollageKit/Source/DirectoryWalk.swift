import FileFacts
import Glibc
import Vips

/// Walks one directory tree lazily, depth first: a directory is read only
/// when the walk reaches it, its entries visited in the byte order of their
/// names. Names starting with "." are skipped, and so are the debris of
/// NAS and OS (`ScanRules.isDebris`: such a folder is never opened) and what
/// `--exclude` matches (a matching folder is not entered either). Only names
/// the rules consider are emitted (images, RAW photos, videos with
/// `--video`); videos without it, RAW files with `--raw skip` and sidecars
/// are reported as passed over. A RAW or a movie that pairs with a still
/// (`ShotPairs`) goes with the still as its partner. Links to files are
/// followed; links to directories only with `followLinks`, and then a link
/// back to an ancestor is reported as a loop, never entered.
struct DirectoryWalk: PullSource {
    /// The image extensions, lower case.
    static var imageExtensions: Set<String> { ImageFormat.inputExtensions }

    private struct FileID: Hashable { let device: UInt64; let inode: UInt64 }

    private struct Frame {
        let path: PathName
        let id: FileID
        /// Its path below the INPUT (what the exclusions match).
        let relative: [UInt8]
        let names: [[UInt8]]
        /// The names the listing said were folders (d_type), so that one
        /// that vanishes before the walk reaches it is still reported.
        let folders: Set<[UInt8]>
        /// The names whose type the listing did not say (links, some file
        /// systems): checked against the folder-only exclusions once known.
        let untyped: Set<[UInt8]>
        let pairs: ShotPairs
        var index = 0
    }

    private var stack: [Frame] = []
    private var root: PathName?
    private let followLinks: Bool
    private let recursive: Bool
    private let folders: Bool
    private let rules: ScanRules
    private let report: (PipelineEvent) -> Void
    /// Hears of each folder as it is read (`opendir`), for the run's counts.
    private let listed: (PathName) -> Void

    /// `report` hears of what the walk skips for a reason a person should know:
    /// unreadable folders, dangling links, loops, special files with image names,
    /// files passed over by kind. With `recursive` false, only the root
    /// folder's own files are walked. With `folders`, the walk emits the
    /// folders it enters (the root first), in the same order, instead of files.
    init(root: PathName, followLinks: Bool, recursive: Bool = true, folders: Bool = false,
                rules: ScanRules = ScanRules(), listed: @escaping (PathName) -> Void = { _ in },
                report: @escaping (PipelineEvent) -> Void) {
        self.listed = listed
        self.root = root
        self.followLinks = followLinks
        self.recursive = recursive
        self.folders = folders
        self.rules = rules
        self.report = report
    }

    mutating func next() -> PathName? { nextFile()?.path }

    /// The next file (or folder, with `folders`), with its partners.
    mutating func nextFile() -> InputFile? {
        if let root {
            self.root = nil
            var info = Glibc.stat()
            guard Self.fileStatus(root, &info, follow: true) == 0 else {
                report(.failed(path: root, error: systemError(errno)))
                return nextInStack()
            }
            let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            if enter(root, id: id, relative: rules.below), folders {
                return InputFile(path: root, explicit: false)
            }
        }
        return nextInStack()
    }

    private mutating func nextInStack() -> InputFile? {
        while !stack.isEmpty {
            let top = stack.count - 1
            let index = stack[top].index
            guard index < stack[top].names.count else {
                stack.removeLast()
                continue
            }
            stack[top].index += 1
            if let file = visit(top, index) { return file }
        }
        return nil
    }

    /// Decides what one entry is; returns it when it is a candidate.
    private mutating func visit(_ top: Int, _ index: Int) -> InputFile? {
        let frame = stack[top]
        let name = frame.names[index]
        let path = frame.path.appending(name)
        let verdict = folders ? .ignore : rules.inFolder(name)
        var info = Glibc.stat()
        guard Self.fileStatus(path, &info, follow: false) == 0 else {
            // Vanished between the listing and now.
            let code = errno
            let reason = code == ENOENT ? "vanished: " + systemError(code) : systemError(code)
            if frame.folders.contains(name) {
                report(.failed(path: path, error: "cannot read folder: " + reason))
            } else if verdict == .consider {
                report(.failed(path: path, error: reason))
            }
            return nil
        }
        var mode = info.st_mode & S_IFMT
        let isLink = mode == S_IFLNK
        if isLink {
            guard Self.fileStatus(path, &info, follow: true) == 0 else {
                let code = errno
                if verdict == .consider {
                    let what = code == ENOENT ? "dangling symbolic link" : systemError(code)
                    report(.failed(path: path, error: what))
                }
                return nil
            }
            mode = info.st_mode & S_IFMT
        }
        switch mode {
        case S_IFREG:
            switch verdict {
            case .consider where !frame.pairs.secondary.contains(index):
                let partners = frame.pairs.partners[index] ?? []
                return InputFile(path: path, explicit: false, partners: partners.map { frame.path.appending(frame.names[$0]) },
                                 stamp: FileStamp(info))
            case .passOver(let kind):
                report(.passedOver(path: path, kind: kind))
            case .consider, .ignore:
                break
            }
            return nil
        case S_IFDIR:
            let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            if (isLink && !followLinks) || !recursive { return nil }
            let relative = ScanRules.relative(name, in: frame.relative)
            if frame.untyped.contains(name) && rules.excludesFolder(relative) { return nil }
            if stack.contains(where: { $0.id == id }) {
                report(.failed(path: path, error: "symbolic link loop: not followed"))
                return nil
            }
            return enter(path, id: id, relative: relative) && folders ? InputFile(path: path, explicit: false) : nil
        default:
            if verdict == .consider {
                report(.rejected(path: path, reason: .unsupported, detail: "not a regular file"))
            }
            return nil
        }
    }

    /// Reads one directory's names (debris and exclusions left out), sorted
    /// by bytes, finds its pairs and pushes it.
    @discardableResult
    private mutating func enter(_ path: PathName, id: FileID, relative: [UInt8]) -> Bool {
        var names: [[UInt8]] = []
        var folders = Set<[UInt8]>()
        var untyped = Set<[UInt8]>()
        let opened: OpaquePointer? = path.withCString { $0.flatMap { opendir($0) } }
        guard let directory = opened else {
            report(.failed(path: path, error: "cannot read folder: " + systemError(errno)))
            return false
        }
        defer { closedir(directory) }
        listed(path)
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 {
                    report(.failed(path: path, error: "cannot read folder: " + systemError(errno)))
                }
                break
            }
            let name = entryName(entry)
            if name.first == UInt8(ascii: ".") { continue }  // ".", "..", and hidden names
            if ScanRules.isDebris(name) { continue }
            let type = entry.pointee.d_type
            let known = type != UInt8(DT_UNKNOWN) && type != UInt8(DT_LNK)
            let isFolder = type == UInt8(DT_DIR)
            if !rules.exclusions.isEmpty,
               rules.excludes(ScanRules.relative(name, in: relative), folder: known ? isFolder : nil) { continue }
            names.append(name)
            if isFolder { folders.insert(name) }
            if !known { untyped.insert(name) }
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        let pairs = self.folders ? ShotPairs() : ShotPairs(names: names, rules: rules, folders: folders)
        stack.append(Frame(path: path, id: id, relative: relative, names: names, folders: folders,
                           untyped: untyped, pairs: pairs))
        return true
    }

    private static func fileStatus(_ path: PathName, _ info: inout Glibc.stat, follow: Bool) -> Int32 {
        path.withCString { cPath in
            guard let cPath else { errno = EINVAL; return -1 }
            if follow {
                let status: Int32 = stat(cPath, &info)
                return status
            }
            return lstat(cPath, &info)
        }
    }
}
