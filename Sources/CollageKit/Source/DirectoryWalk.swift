import Glibc
import Vips

/// Walks one directory tree lazily, depth first: a directory is read only
/// when the walk reaches it, its entries visited in the byte order of their
/// names. Names starting with "." are skipped; only names with an image
/// extension are emitted. Links to files are followed; links to directories
/// only with `followLinks`, and then a link back to an ancestor is reported
/// as a loop, never entered.
public struct DirectoryWalk: PullSource {
    /// The image extensions, lower case.
    public static var imageExtensions: Set<String> { ImageFormat.inputExtensions }

    private struct FileID: Hashable { let device: UInt64; let inode: UInt64 }

    private struct Frame {
        let path: PathName
        let id: FileID
        let names: [[UInt8]]
        /// The names the listing said were folders (d_type), so that one
        /// that vanishes before the walk reaches it is still reported.
        let folders: Set<[UInt8]>
        var index = 0
    }

    private var stack: [Frame] = []
    private var root: PathName?
    private let followLinks: Bool
    private let recursive: Bool
    private let folders: Bool
    private let report: (PipelineEvent) -> Void

    /// `report` hears of what the walk skips for a reason a person should know:
    /// unreadable folders, dangling links, loops, special files with image names.
    /// With `recursive` false, only the root folder's own files are walked.
    /// With `folders`, the walk emits the folders it enters (the root
    /// first), in the same order, instead of image files.
    public init(root: PathName, followLinks: Bool, recursive: Bool = true, folders: Bool = false,
                report: @escaping (PipelineEvent) -> Void) {
        self.root = root
        self.followLinks = followLinks
        self.recursive = recursive
        self.folders = folders
        self.report = report
    }

    public mutating func next() -> PathName? {
        if let root {
            self.root = nil
            var info = Glibc.stat()
            guard Self.fileStatus(root, &info, follow: true) == 0 else {
                report(.failed(path: root, error: systemError(errno)))
                return nextInStack()
            }
            if enter(root, id: FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))), folders {
                return root
            }
        }
        return nextInStack()
    }

    private mutating func nextInStack() -> PathName? {
        while !stack.isEmpty {
            let top = stack.count - 1
            guard stack[top].index < stack[top].names.count else {
                stack.removeLast()
                continue
            }
            let name = stack[top].names[stack[top].index]
            stack[top].index += 1
            let path = stack[top].path.appending(name)
            if let file = visit(path, listedAsFolder: stack[top].folders.contains(name)) { return file }
        }
        return nil
    }

    /// Decides what one entry is; returns it when it is an image candidate.
    private mutating func visit(_ path: PathName, listedAsFolder: Bool) -> PathName? {
        var info = Glibc.stat()
        guard Self.fileStatus(path, &info, follow: false) == 0 else {
            // Vanished between the listing and now.
            let code = errno
            let reason = code == ENOENT ? "vanished: " + systemError(code) : systemError(code)
            if listedAsFolder {
                report(.failed(path: path, error: "cannot read folder: " + reason))
            } else if isImageName(path) {
                report(.failed(path: path, error: reason))
            }
            return nil
        }
        var mode = info.st_mode & S_IFMT
        let isLink = mode == S_IFLNK
        if isLink {
            guard Self.fileStatus(path, &info, follow: true) == 0 else {
                let code = errno
                if isImageName(path) {
                    let what = code == ENOENT ? "dangling symbolic link" : systemError(code)
                    report(.failed(path: path, error: what))
                }
                return nil
            }
            mode = info.st_mode & S_IFMT
        }
        switch mode {
        case S_IFREG:
            return isImageName(path) && !folders ? path : nil
        case S_IFDIR:
            let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            if (isLink && !followLinks) || !recursive { return nil }
            if stack.contains(where: { $0.id == id }) {
                report(.failed(path: path, error: "symbolic link loop: not followed"))
                return nil
            }
            return enter(path, id: id) && folders ? path : nil
        default:
            if isImageName(path) && !folders {
                report(.rejected(path: path, reason: .unsupported, detail: "not a regular file"))
            }
            return nil
        }
    }

    /// Reads one directory's names, sorted by bytes, and pushes it.
    @discardableResult
    private mutating func enter(_ path: PathName, id: FileID) -> Bool {
        var names: [[UInt8]] = []
        var folders = Set<[UInt8]>()
        let opened: OpaquePointer? = path.withCString { $0.flatMap { opendir($0) } }
        guard let directory = opened else {
            report(.failed(path: path, error: "cannot read folder: " + systemError(errno)))
            return false
        }
        defer { closedir(directory) }
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
            names.append(name)
            if entry.pointee.d_type == UInt8(DT_DIR) { folders.insert(name) }
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        stack.append(Frame(path: path, id: id, names: names, folders: folders))
        return true
    }

    private func isImageName(_ path: PathName) -> Bool {
        Self.imageExtensions.contains(path.lowercasedExtension)
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
