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
        let listing: DirectoryListing
        let pairs: ShotPairs
        /// Its names that are XMP sidecars' (`NAME.xmp`, `NAME.EXT.xmp`).
        let xmp: Set<[UInt8]>
        var index = 0
        var path: PathName { listing.path }
        var id: FileID { FileID(device: listing.device, inode: listing.inode) }
        var relative: [UInt8] { listing.relative }
        var names: [[UInt8]] { listing.names }
        var folders: Set<[UInt8]> { listing.folders }
        var untyped: Set<[UInt8]> { listing.untyped }
    }

    private var stack: [Frame] = []
    private var root: PathName?
    /// The root's listing, when the walk of folders already read it.
    private var rootListing: DirectoryListing?
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
    /// `listing`, the root's as a walk of folders read it, is walked
    /// instead of reading the root again.
    init(root: PathName, followLinks: Bool, recursive: Bool = true, folders: Bool = false,
         rules: ScanRules = ScanRules(), listing: DirectoryListing? = nil, listed: @escaping (PathName) -> Void = { _ in },
         report: @escaping (PipelineEvent) -> Void) {
        self.listed = listed
        self.root = root
        self.rootListing = listing?.path == root ? listing : nil
        self.followLinks = followLinks
        self.recursive = recursive
        self.folders = folders
        self.rules = rules
        self.report = report
    }

    mutating func next() -> PathName? { nextFile()?.path }

    /// The next file (or folder, with `folders`), with its partners.
    mutating func nextFile() -> InputFile? {
        if let listing = rootListing {
            (root, rootListing) = (nil, nil)
            push(listing)
            if folders { return InputFile(path: listing.path, explicit: false) }
        }
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

    /// With `folders`: the next folder and its listing, which its own run
    /// walks (`init(listing:)`) without reading it again.
    mutating func nextFolder() -> DirectoryListing? {
        precondition(folders, "a walk of files has no listings to give")
        return nextFile() == nil ? nil : stack.last?.listing
    }

    /// Decides what one entry is; returns it when it is a candidate.
    private mutating func visit(_ top: Int, _ index: Int) -> InputFile? {
        let frame = stack[top]
        let name = frame.names[index]
        // A walk of folders stats only what may be one: a name the listing
        // said is a file is its folder's run's to stat.
        if folders && !frame.folders.contains(name) && !frame.untyped.contains(name) { return nil }
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
                let partners = (frame.pairs.partners[index] ?? []).map { frame.path.appending(frame.names[$0]) }
                let sidecars = frame.xmp.isEmpty ? []
                    : path.xmpSidecars(partners: partners).filter { frame.xmp.contains($0.lastComponent) }
                return InputFile(path: path, explicit: false, partners: partners, stamp: FileStamp(info), sidecars: sidecars)
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

    /// Reads one directory's names (see `DirectoryListing`) and pushes it.
    @discardableResult
    private mutating func enter(_ path: PathName, id: FileID, relative: [UInt8]) -> Bool {
        guard let listing = DirectoryListing.read(path, device: id.device, inode: id.inode, relative: relative,
                                                  rules: rules, listed: listed, report: report) else { return false }
        push(listing)
        return true
    }

    /// Walks `listing` next, its pairs found.
    private mutating func push(_ listing: DirectoryListing) {
        let pairs = folders ? ShotPairs() : ShotPairs(names: listing.names, rules: rules, folders: listing.folders)
        let xmp = Set(listing.names.filter { $0.count > 4 && $0.suffix(4).elementsEqual(".xmp".utf8) })
        stack.append(Frame(listing: listing, pairs: pairs, xmp: xmp))
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
