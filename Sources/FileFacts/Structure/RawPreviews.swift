/// A JPEG embedded in a RAW photo: where its bytes are, and its size and
/// decoder buffer as its own frame header says (`StructureCheck.checkJPEG`).
public struct EmbeddedJPEG: Sendable, Equatable {
    /// Where its bytes start in the file, and how many there are.
    public let offset: Int
    public let length: Int
    /// Its size, from its frame header.
    public let width: Int
    public let height: Int
    /// A progressive JPEG's coefficients (0 for a baseline one).
    public let bufferBytes: Int

    /// A JPEG of `length` bytes at `offset`, of `width` x `height` pixels.
    public init(offset: Int, length: Int, width: Int, height: Int, bufferBytes: Int = 0) {
        self.offset = offset
        self.length = length
        self.width = width
        self.height = height
        self.bufferBytes = bufferBytes
    }
}

/// What a RAW photo's own structure says, read without LibRaw: its JPEG
/// previews, its orientation and capture time, and whether its raw data is
/// cut short. What cannot be read is left out, never an error: LibRaw still
/// has its say.
public struct RawLayout: Sendable, Equatable {
    /// Every embedded JPEG whose frame header checks, smallest first.
    public var previews: [EmbeddedJPEG] = []
    /// EXIF orientation (1-8) of IFD0 (CR3: of its CMT1 box).
    public var orientation: Int?
    /// EXIF DateTimeOriginal (CR3: of its CMT2 box).
    public var taken: LocalDateTime?
    /// Why the raw data cannot give a picture, when the structure shows it
    /// (far less data in the file than its size needs).
    public var rawDataProblem: String?

    /// Nothing known yet.
    public init() {}
}

extension StructureCheck {
    /// The RAW photo open on `descriptor` as its structure describes it:
    /// TIFF-based RAWs' directories (IFD0's chain, SubIFDs, the EXIF IFD:
    /// JPEG strips, JPEGInterchangeFormat, Panasonic's JpgFromRaw, the
    /// preview pointers of Nikon's, Olympus' and Pentax's maker notes),
    /// Fujifilm RAF's header, Canon CR3's boxes (THMB, PRVW, the full-size
    /// JPEG track). Each JPEG is checked as a file of its own; those over
    /// `maxPixels` or the buffer limit are left out.
    public static func rawLayout(descriptor: Int32, maxPixels: Int = .max, maxBuffer: Int = bufferLimit) -> RawLayout {
        guard let file = try? FileBytes(descriptor: descriptor) else { return RawLayout() }
        let limits = Limits(maxPixels: maxPixels, bufferBytes: max(bufferLimit, maxBuffer))
        var layout = RawLayout()
        var spans: [(offset: Int, length: Int)] = []
        if let head = try? file.read(0, min(16, file.size)), head.count >= 12 {
            if head.fourCC(4) == "ftyp" && head.fourCC(8) == "crx " {
                spans = CR3Structure.walk(file, &layout)
            } else if head.count >= 15 && String(decoding: head[0..<15], as: UTF8.self) == "FUJIFILMCCD-RAW" {
                if let words = try? file.read(84, 8) { spans = [(words.be32(0), words.be32(4))] }
            } else if head.starts(with: [0x49, 0x49]) || head.starts(with: [0x4D, 0x4D]) {
                spans = RawStructure.previewSpans(file, &layout)
            }
        }
        var seen: Set<Int> = []
        for span in spans where span.length > 0 && seen.insert(span.offset).inserted {
            guard let window = file.window(span.offset, span.length),
                  let jpeg = try? JPEGStructure.check(window, limits), jpeg.width > 0, jpeg.height > 0 else { continue }
            layout.previews.append(EmbeddedJPEG(offset: span.offset, length: span.length, width: jpeg.width,
                                                height: jpeg.height, bufferBytes: jpeg.bufferBytes))
        }
        layout.previews.sort { ($0.width * $0.height, $0.offset) < ($1.width * $1.height, $1.offset) }
        return layout
    }
}

extension RawStructure {
    /// The JPEGs TIFF-based RAWs point to (offsets in the whole file), and
    /// IFD0's orientation, the capture time, and raw data cut short.
    static func previewSpans(_ file: FileBytes, _ layout: inout RawLayout) -> [(offset: Int, length: Int)] {
        guard let ifds = try? directories(file, limit: 64, strict: false), let first = ifds.first else { return [] }
        var spans: [(offset: Int, length: Int)] = []
        if let orientation = (try? first.0.value(274, file, first.2)) ?? nil, (1...8).contains(orientation) {
            layout.orientation = orientation
        }
        for (ifd, _, tiff) in ifds {
            spans += jpegs(in: ifd, file, tiff)
            if layout.taken == nil, let text = ascii(ifd, 36867, file, tiff) { layout.taken = ExifDateTime.parse(text) }
            if let note = ifd.entries[37500] { spans += MakerNotes.previews(note, file, tiff) }
            if layout.rawDataProblem == nil { layout.rawDataProblem = cutShort(ifd, file, tiff) }
        }
        return spans
    }

    /// The JPEGs one IFD points to: a JPEG strip (compression 6 or 7, not
    /// raw samples), JPEGInterchangeFormat, Panasonic's JpgFromRaw (0x2e).
    static func jpegs(in ifd: TIFFDirectory, _ file: FileBytes, _ tiff: TIFFLayout) -> [(offset: Int, length: Int)] {
        var spans: [(offset: Int, length: Int)] = []
        func value(_ tag: Int) -> Int? { (try? ifd.value(tag, file, tiff)) ?? nil }
        let base = file.origin
        if let start = value(513), let length = value(514) { spans.append((base + start, length)) }
        if let compression = value(259), compression == 6 || compression == 7,
           ![32803, 34892].contains(value(262) ?? 0), ifd.entries[273]?.count == 1,
           let start = value(273), let length = value(279) {
            spans.append((base + start, length))
        }
        if let entry = ifd.entries[0x2E], entry.type == 7, entry.count > 4 {
            spans.append((base + tiff.int(entry.field, 0, tiff.offsetSize), entry.count))
        }
        return spans
    }

    /// An ASCII value (EXIF dates), at most 64 bytes.
    static func ascii(_ ifd: TIFFDirectory, _ tag: Int, _ file: FileBytes, _ tiff: TIFFLayout) -> [UInt8]? {
        guard let entry = ifd.entries[tag], entry.type == 2, (1...64).contains(entry.count) else { return nil }
        if entry.count <= tiff.offsetSize { return Array(entry.field.prefix(entry.count)) }
        return try? file.read(tiff.int(entry.field, 0, tiff.offsetSize), entry.count)
    }

    /// Raw samples (a colour filter array or linear raw) whose strips or
    /// tiles hold, within the file, less than they need: all their bytes
    /// when uncompressed, and far less than any camera's compression leaves
    /// (one bit in 32 pixels) when compressed.
    static func cutShort(_ ifd: TIFFDirectory, _ file: FileBytes, _ tiff: TIFFLayout) -> String? {
        func value(_ tag: Int) -> Int? { (try? ifd.value(tag, file, tiff)) ?? nil }
        guard [32803, 34892].contains(value(262) ?? 0), value(254) ?? 0 == 0,
              let width = value(256), let height = value(257), width > 0, height > 0 else { return nil }
        let (offsets, counts) = ifd.entries[324] != nil ? (324, 325) : (273, 279)
        var starts: [Int] = []
        try? ifd.forEach(offsets, file, tiff, limit: 65536) { _, start in starts.append(start) }
        var held = 0
        try? ifd.forEach(counts, file, tiff, limit: starts.count) { index, count in
            let start = starts[index]
            if start >= 0, start < file.size { held += min(count, file.size - start) }
        }
        guard !starts.isEmpty else { return nil }
        if value(259) ?? 1 == 1 {
            var bits = 0
            try? ifd.forEach(258, file, tiff, limit: 16) { _, value in bits += value }
            let needed = ceilingDivide(product(width, height, max(1, bits)), 8)
            guard held < needed else { return nil }
            return "truncated raw data (\(held) bytes in the file where \(width)x\(height) pixels need \(needed))"
        }
        guard held < product(width, height) / 256 else { return nil }
        return "the raw data is cut short (\(held) bytes in the file for \(width)x\(height) pixels)"
    }
}
