/// Camera RAW files: which files are RAW photos (to LibRaw, not libtiff),
/// and, for the TIFF-based ones, the checks of `TIFFStructure` that apply
/// to any TIFF: every IFD and its values in the file, no loop, a bounded
/// number of directories and entries. The strips are LibRaw's business
/// (their layout differs by maker); LibRaw reads them through a bounded
/// stream of its own (`Sources/CLibRaw`).
enum RawStructure {
    /// RAW formats with their own first bytes: Fujifilm RAF, Minolta MRW,
    /// Sigma X3F, Olympus ORF, Panasonic RW2 and Leica RWL, Phase One IIQ,
    /// Canon CR2 (a TIFF marked "CR" at byte 8).
    static func magic(_ head: [UInt8]) -> Bool {
        if head.count >= 15 && String(decoding: head[0..<15], as: UTF8.self) == "FUJIFILMCCD-RAW" { return true }
        if head.starts(with: [0x00, 0x4D, 0x52, 0x4D]) { return true }  // MRW
        if ["FOVb", "IIRO", "IIRS", "MMOR", "IIII", "MMMM"].contains(head.fourCC(0)) { return true }
        if head.starts(with: [0x49, 0x49, 0x55, 0x00]) { return true }  // RW2, RWL
        if head.count >= 10 && head.starts(with: [0x49, 0x49, 0x2A, 0x00]) && head[8] == 0x43 && head[9] == 0x52 {
            return true  // CR2
        }
        return false
    }

    /// TIFF compressions only RAW data uses (Sony, Samsung, Nikon,
    /// Panasonic, Kodak, Pentax).
    static let rawCompressions: Set<Int> = [32767, 32769, 32770, 32771, 34713, 34316, 65000, 65535]

    /// Whether a TIFF is a RAW photo: a DNG (DNGVersion), or an image of
    /// colour filter array or linear raw samples, or raw compression, in
    /// IFD0's chain or their SubIFDs (NEF, ARW, PEF, SRW, 3FR, ERF, KDC,
    /// SR2 and SRF). A structure too broken to say is left to the TIFF
    /// check, which names the problem.
    static func isRaw(_ file: FileBytes) -> Bool {
        (try? directories(file, limit: 64, strict: false).contains(where: rawDirectory)) ?? false
    }

    private static func rawDirectory(_ entry: (TIFFDirectory, FileBytes, TIFFLayout)) -> Bool {
        let (ifd, file, layout) = entry
        if ifd.entries[50706] != nil { return true }
        let photometric = (try? ifd.value(262, file, layout)) ?? nil
        if photometric == 32803 || photometric == 34892 { return true }
        if let compression = (try? ifd.value(259, file, layout)) ?? nil, rawCompressions.contains(compression) { return true }
        return false
    }

    /// The IFDs of the chain from IFD0 and their SubIFDs, each once, each
    /// within the file: the checks that apply to any TIFF-based RAW.
    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        guard let head = try file.read(0, 4), head.starts(with: [0x49, 0x49]) || head.starts(with: [0x4D, 0x4D]),
              [42, 43, 0x55, 0x4F52, 0x5352, 0x524F].contains(head[0] == 0x49 ? head.le16(2) : head.be16(2)) else {
            return StructureCheck.Summary()  // not TIFF-based: LibRaw's own parser, behind its bounded stream
        }
        do {
            _ = try directories(file, limit: TIFFStructure.maxDirectories, strict: true)
        } catch let error as VipsError {
            // TIFFDirectory speaks of TIFFs; this one is a RAW photo.
            var message = error.message
            for kind in ["corrupt", "truncated"] where message.hasPrefix(kind + " tiff: ") {
                message = kind + " raw: " + message.dropFirst(kind.count + 7)
            }
            throw VipsError(error.code, message)
        }
        return StructureCheck.Summary()
    }

    /// Walks IFD0's chain and SubIFDs (tag 330) and the EXIF IFD (34665).
    /// Not `strict`: the directories read before a problem (a loop, an
    /// offset past the end), which the strict walk then reports.
    static func directories(_ file: FileBytes, limit: Int,
                                    strict: Bool) throws -> [(TIFFDirectory, FileBytes, TIFFLayout)] {
        guard let head = try file.read(0, 16) ?? file.read(0, 8) else { throw truncated("raw", "a header cut short", file) }
        let little = head[0] == 0x49
        var layout = TIFFLayout(little: little, big: false)
        var first = layout.int(head, 4, 4)
        if layout.int(head, 2, 2) == 43 {
            guard head.count == 16 else { throw truncated("raw", "a BigTIFF header cut short", file) }
            layout = TIFFLayout(little: little, big: true)
            first = layout.int(head, 8, 8)
        }
        var found: [(TIFFDirectory, FileBytes, TIFFLayout)] = []
        var queue = [first], seen: Set<Int> = []
        do {
            while let offset = queue.popLast() {
                if offset == 0 { continue }
                guard seen.insert(offset).inserted else { throw corrupt("raw", "the IFD chain loops back to offset \(offset)") }
                guard seen.count <= limit else { throw corrupt("raw", "more than \(limit) IFDs") }
                let directory = try TIFFDirectory(file, layout, at: offset)
                found.append((directory, file, layout))
                queue.append(directory.next)
                queue += try directory.subIFDs(file, layout)
                if let exif = try directory.value(34665, file, layout) { queue.append(exif) }
            }
        } catch where !strict {
            return found
        }
        return found
    }
}
