/// TIFF: a header, then a chain of IFDs, each describing one image as
/// strips or tiles at offsets in the file. libtiff allocates a whole strip
/// or tile as the IFD sizes it, and follows the chain wherever it points.
enum TIFFStructure {
    /// More pages than a TIFF worth decoding has; a longer chain is a loop
    /// in disguise or a table of junk.
    static let maxDirectories = 10_000

    static func check(_ file: FileBytes, _ limits: Limits) throws -> StructureCheck.Summary {
        guard let head = try file.read(0, 16) ?? file.read(0, 8) else {
            throw truncated("tiff", "a header cut short", file)
        }
        let little: Bool
        switch (head[0], head[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: throw corrupt("tiff", "no byte order mark")
        }
        var layout = TIFFLayout(little: little, big: false)
        let version = layout.int(head, 2, 2)
        let first: Int
        switch version {
        case 42: first = layout.int(head, 4, 4)
        case 43 where head.count == 16:
            layout = TIFFLayout(little: little, big: true)
            first = layout.int(head, 8, 8)
        default: throw corrupt("tiff", "version \(version)")
        }
        var summary = StructureCheck.Summary()
        var queue = [first]
        var seen: Set<Int> = []
        while let offset = queue.popLast() {
            if offset == 0 { continue }
            guard seen.insert(offset).inserted else {
                throw corrupt("tiff", "the IFD chain loops back to offset \(offset)")
            }
            guard seen.count <= maxDirectories else {
                throw corrupt("tiff", "more than \(maxDirectories) IFDs")
            }
            let directory = try TIFFDirectory(file, layout, at: offset)
            summary.bufferBytes = max(summary.bufferBytes, try image(directory, file, layout, limits))
            queue.append(directory.next)
            queue += try directory.subIFDs(file, layout)
        }
        guard !seen.isEmpty else { throw corrupt("tiff", "no IFD") }
        return summary
    }

    /// Checks the image one IFD describes; returns the bytes of its largest
    /// strip or tile, decoded.
    private static func image(_ ifd: TIFFDirectory, _ file: FileBytes, _ layout: TIFFLayout,
                              _ limits: Limits) throws -> Int {
        let at = "the IFD at offset \(ifd.offset)"
        guard let width = try ifd.value(256, file, layout), let height = try ifd.value(257, file, layout),
              width > 0, height > 0 else {
            throw corrupt("tiff", "\(at) has no image size")
        }
        try limits.pixels("tiff", width, height)
        let samples = try ifd.value(277, file, layout) ?? 1
        var bits = 0
        try ifd.forEach(258, file, layout, limit: 256) { _, value in bits = max(bits, value) }
        if bits == 0 { bits = 1 }
        guard (1...256).contains(samples), (1...64).contains(bits) else {
            throw corrupt("tiff", "\(at) has \(samples) samples of \(bits) bits per pixel")
        }
        let planes = try ifd.value(284, file, layout) == 2 ? samples : 1
        let rowBytes = ceilingDivide(product(width, samples, bits), 8)
        let pieces: (offsets: Int, counts: Int, expected: Int, bytes: Int, kind: String)
        if let tileWidth = try ifd.value(322, file, layout), let tileHeight = try ifd.value(323, file, layout) {
            guard tileWidth > 0, tileHeight > 0 else { throw corrupt("tiff", "\(at) has \(tileWidth)x\(tileHeight) tiles") }
            let across = ceilingDivide(width, tileWidth), down = ceilingDivide(height, tileHeight)
            let bytes = ceilingDivide(product(tileWidth, samples, bits), 8)
            pieces = (324, 325, product(across, down, planes), product(bytes, tileHeight), "tile")
            try limits.buffer("a tiff tile of \(tileWidth)x\(tileHeight)", pieces.bytes)
        } else {
            let rows = min(height, max(1, try ifd.value(278, file, layout) ?? height))
            pieces = (273, 279, product(ceilingDivide(height, rows), planes), product(rowBytes, rows), "strip")
            try limits.buffer("a tiff strip of \(rows) rows of \(width) pixels", pieces.bytes)
        }
        try checkPieces(ifd, file, layout, pieces.offsets, pieces.counts, pieces.expected, pieces.kind)
        return pieces.bytes
    }

    /// Every strip or tile: as many as the image needs, each in the file.
    private static func checkPieces(_ ifd: TIFFDirectory, _ file: FileBytes, _ layout: TIFFLayout,
                                    _ offsetsTag: Int, _ countsTag: Int, _ expected: Int, _ kind: String) throws {
        guard let offsets = ifd.entries[offsetsTag] else {
            throw corrupt("tiff", "the IFD at offset \(ifd.offset) has no \(kind) offsets")
        }
        guard [3, 4, 16].contains(offsets.type), ifd.entries[countsTag].map({ [3, 4, 16].contains($0.type) }) ?? true else {
            throw corrupt("tiff", "\(kind) offsets or byte counts that are not integers")
        }
        guard offsets.count == expected else {
            throw corrupt("tiff", "\(offsets.count) \(kind)s where the image size makes \(expected)")
        }
        guard let counts = ifd.entries[countsTag] else { return }  // libtiff estimates them
        guard counts.count == expected else {
            throw corrupt("tiff", "\(counts.count) \(kind) byte counts for \(expected) \(kind)s")
        }
        // Offsets and counts are read in step, a block of each at a time.
        var starts: [Int] = []
        starts.reserveCapacity(min(expected, 16384))
        var checked = 0
        func flushCounts(upTo end: Int) throws {
            guard checked < end else { return }
            try ifd.forEach(countsTag, file, layout, from: checked, limit: end) { index, count in
                let start = starts[index - checked]
                guard file.contains(start, count) else {
                    throw truncated("tiff", "\(kind) \(index) of \(count) bytes at offset \(start)", file)
                }
            }
            checked = end
            starts.removeAll(keepingCapacity: true)
        }
        try ifd.forEach(offsetsTag, file, layout) { index, start in
            starts.append(start)
            if starts.count == 16384 { try flushCounts(upTo: index + 1) }
        }
        try flushCounts(upTo: expected)
    }
}
