import Glibc
import Locking

extension ProcessPages {
    /// Takes out of this process's resident set the pages of files it has
    /// mapped and only read: above all the code and read-only data of the
    /// shared libraries loaded at start. Returns the bytes taken out, or nil
    /// when `/proc/self/smaps` cannot be read.
    ///
    /// Debian's libvips links about a hundred libraries (ImageMagick,
    /// Poppler, OpenEXR, HDF5, x265, GnuTLS...). Loading them touches their
    /// headers, symbol tables and constructors, and those pages stay in the
    /// resident set although a run of JPEGs and PNGs never reads them again:
    /// 31 MiB of file pages at the peak of 300 photos, 13-15 MiB once they are
    /// taken out (BENCHMARKS.md). The pages stay in the page cache, shared
    /// and clean; a page that is read again is mapped again from there, at
    /// the cost of a minor fault.
    ///
    /// Only private mappings that cannot be written and hold no page the
    /// process has written are touched: a relocated read-only segment (its
    /// pages copied on write before it was made read-only) would lose its
    /// relocations, so any mapping with an anonymous, dirty or swapped page
    /// is left alone, as are locked ones. Call it after libvips has started
    /// (its modules are loaded then) and while no thread is loading a
    /// library, so that no mapping changes between reading and advising.
    @discardableResult
    public static func releaseReadOnlyFilePages() -> Int? {
        guard let smaps = readWholeFile("/proc/self/smaps") else { return nil }
        var released = 0
        var code: [ReleasableMapping] = []
        let executable = executablePath()
        for mapping in releasableMappings(smaps: smaps) where dropPages(of: mapping) {
            released += mapping.residentBytes
            if isLoadedCode(mapping.path, executable: executable) { code.append(mapping) }
        }
        loadedCode.withLock { $0 = code }
        return released
    }

    /// Takes out of the resident set, again, the pages of the executable and
    /// the shared libraries that `releaseReadOnlyFilePages` released at
    /// start and the run has read since: call it where memory is about to
    /// be tightest (a giant decode starting). Returns the mappings advised;
    /// 0 when there was no release at start.
    ///
    /// Measured on 300 photos into sheets, at the peak: 20 MiB of file pages
    /// resident, of which 5.8 MiB were read in the 3 s before it (the
    /// `Referenced` pages of smaps after a `clear_refs`): the rest had been
    /// read once, at start or by a rare path, since the release at start,
    /// or mapped beside a page read (the kernel maps up to 16 pages around
    /// each fault). Released again at each giant's start, the peak was about
    /// 6 MiB lower (BENCHMARKS.md).
    ///
    /// Other threads run meanwhile, so only mappings that cannot have been
    /// replaced are touched: those of the executable and of libraries that
    /// were loaded before the release at start (a library is never unloaded
    /// here; gconv modules, which glibc may unload, are left out), each
    /// still found in `/proc/self/maps` with the same range, file and
    /// protection before it is advised.
    @discardableResult
    public static func releaseLoadedCodePagesAgain() -> Int {
        let recorded = loadedCode.withLock { $0 }
        guard !recorded.isEmpty, let maps = readWholeFile("/proc/self/maps") else { return 0 }
        return stillMapped(recorded, maps: maps).filter(dropPages(of:)).count
    }

    /// Drops the mapping's resident pages (`MADV_DONTNEED`); whether the kernel took the advice.
    private static func dropPages(of mapping: ReleasableMapping) -> Bool {
        guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { return false }
        return madvise(start, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0
    }

    /// The executable's and start-up libraries' mappings released at start.
    private static let loadedCode = Locked<[ReleasableMapping]>([])

    /// Whether a mapping's file is the executable or a shared library other
    /// than a gconv module.
    static func isLoadedCode(_ path: String, executable: String?) -> Bool {
        if path == executable { return true }
        guard !path.contains("/gconv/") else { return false }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".so") || name.contains(".so.")
    }

    /// The mappings of `recorded` that `maps` (the text of `/proc/<pid>/maps`)
    /// still shows with the same range, file (device and inode) and a
    /// protection that cannot write.
    static func stillMapped(_ recorded: [ReleasableMapping], maps: String) -> [ReleasableMapping] {
        var byStart: [UInt: ReleasableMapping] = [:]
        for mapping in recorded { byStart[mapping.start] = mapping }
        var result: [ReleasableMapping] = []
        for line in maps.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let header = MappingHeader(line), let mapping = byStart[header.start], header.end == mapping.end,
                  header.file == mapping.file, header.isPrivateReadOnly
            else { continue }
            result.append(mapping)
        }
        return result
    }

    /// The line that begins a mapping in maps and smaps alike:
    /// "start-end perms offset dev inode [path]".
    struct MappingHeader {
        var start: UInt
        var end: UInt
        /// Private (copied on write) and without write permission.
        var isPrivateReadOnly: Bool
        /// Its file's device and inode ("fd:01 1001"; inode 0 for no file).
        var file: String
        var inode: Substring
        var path: Substring

        init?(_ line: Substring) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5 else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16),
                  end > start
            else { return nil }
            let permissions = Array(fields[1].utf8)
            self.start = start
            self.end = end
            isPrivateReadOnly = permissions.count == 4 && permissions[1] != UInt8(ascii: "w")
                && permissions[3] == UInt8(ascii: "p")
            file = "\(fields[3]) \(fields[4])"
            inode = fields[4]
            path = fields.count > 5 ? fields[5].drop(while: { $0 == " " }) : ""
        }
    }

    /// The file this process runs, or nil.
    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// One mapping of `/proc/self/smaps` whose pages may be dropped.
    struct ReleasableMapping: Equatable {
        var start: UInt
        var end: UInt
        var residentBytes: Int
        /// Its file's device and inode, as smaps and maps show them ("fd:01 1001").
        var file: String = ""
        var path: String = ""
    }

    /// The mappings of `smaps` (the text of `/proc/<pid>/smaps`) that are
    /// private, not writable, backed by a file, resident in part, and hold
    /// no anonymous, privately dirty or swapped page, and are not locked.
    static func releasableMappings(smaps: String) -> [ReleasableMapping] {
        var result: [ReleasableMapping] = []
        var current: (start: UInt, end: UInt, eligible: Bool, file: String, path: String)?
        var resident = 0
        var written = false
        func finish() {
            if let mapping = current, mapping.eligible, resident > 0, !written {
                result.append(ReleasableMapping(start: mapping.start, end: mapping.end, residentBytes: resident,
                                                file: mapping.file, path: mapping.path))
            }
            current = nil
        }
        // Lines split at their bytes (the kernel escapes a newline in a path, so a line is never "\r\n"-joined).
        for bytes in smaps.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let line = Substring(bytes)
            if isFieldNotRead(line) { continue }
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.hasSuffix(":") {
                // A field of the current mapping: "Rss:   120 kB", "VmFlags: rd ex mr".
                guard current != nil, fields.count >= 2 else { continue }
                switch first {
                case "Rss:": resident = (Int(fields[1]) ?? 0) * 1024
                case "Anonymous:", "Private_Dirty:", "Swap:", "SwapPss:":
                    if Int(fields[1]) != 0 { written = true }
                case "VmFlags:":
                    if line.split(separator: " ").contains("lo") { written = true }
                default: break
                }
                continue
            }
            finish()
            resident = 0
            written = false
            guard let header = MappingHeader(line) else { continue }
            let eligible = header.isPrivateReadOnly && header.inode != "0" && header.path.hasPrefix("/")
            current = (header.start, header.end, eligible, header.file, String(header.path))
        }
        finish()
        return result
    }

    /// Whether `line` is a field of a mapping ("Pss:   12 kB") that
    /// `releasableMappings` does not read: most of smaps' lines, passed
    /// over by their bytes before any is split into fields.
    private static func isFieldNotRead(_ line: Substring) -> Bool {
        let bytes = line.utf8
        let name = bytes[..<(bytes.firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex)]
        guard name.last == UInt8(ascii: ":") else { return false }
        return !fieldsRead.contains { name.elementsEqual($0) }
    }

    private static let fieldsRead = ["Rss:", "Anonymous:", "Private_Dirty:", "Swap:", "SwapPss:", "VmFlags:"]
        .map { Array($0.utf8) }

    /// The whole text of a file (of /proc or /sys), or nil.
    static func readWholeFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
