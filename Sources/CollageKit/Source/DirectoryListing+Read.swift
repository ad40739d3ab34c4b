import Glibc

extension DirectoryListing {
    /// Reads the folder at `path` (`listed` hears of the `opendir`); nil,
    /// reported, when it cannot be read.
    static func read(_ path: PathName, device: UInt64, inode: UInt64, relative: [UInt8], rules: ScanRules,
                     listed: (PathName) -> Void, report: (PipelineEvent) -> Void) -> DirectoryListing? {
        var names: [[UInt8]] = []
        var folders = Set<[UInt8]>()
        var untyped = Set<[UInt8]>()
        let opened: OpaquePointer? = path.withCString { $0.flatMap { opendir($0) } }
        guard let directory = opened else {
            report(.failed(path: path, error: "cannot read folder: " + systemError(errno)))
            return nil
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
        return DirectoryListing(path: path, device: device, inode: inode, relative: relative, names: names,
                                folders: folders, untyped: untyped)
    }
}
