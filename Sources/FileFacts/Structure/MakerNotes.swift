/// Preview pointers in camera makers' notes (the EXIF MakerNote, 37500),
/// where practical: each maker's note is an IFD of its own behind a short
/// header, its offsets counted from the TIFF header or from the note.
enum MakerNotes {
    /// The previews a MakerNote entry points to (offsets in the whole file).
    static func previews(_ note: TIFFEntry, _ file: FileBytes, _ tiff: TIFFLayout) -> [(offset: Int, length: Int)] {
        guard note.dataSize > tiff.offsetSize, note.count >= 16 else { return [] }
        let start = tiff.int(note.field, 0, tiff.offsetSize)
        guard let head = try? file.read(start, 16) else { return [] }
        let text = String(decoding: head.prefix(8).map { (32...126).contains($0) ? $0 : 0x2E }, as: UTF8.self)
        if text.hasPrefix("Nikon.") {
            // Version 2 and 3: a TIFF header of its own 10 bytes in, offsets from it.
            guard let inner = file.window(start + 10, min(note.count, file.size - start) - 10),
                  let little = order(head, 10) else { return [] }
            let layout = TIFFLayout(little: little, big: false)
            guard let header = try? inner.read(0, 8),
                  let ifd = try? TIFFDirectory(inner, layout, at: layout.int(header, 4, 4)),
                  let previewIFD = (try? ifd.value(0x11, inner, layout)) ?? nil,
                  let preview = try? TIFFDirectory(inner, layout, at: previewIFD) else { return [] }
            return pointer(preview, 0x201, 0x202, inner, layout, base: inner.origin)
        }
        if text.hasPrefix("OLYMPUS.") {
            // New style: byte order at 8, the IFD at 12, offsets from the note.
            guard let inner = file.window(start, min(note.count, file.size - start)), let little = order(head, 8) else {
                return []
            }
            let layout = TIFFLayout(little: little, big: false)
            guard let ifd = try? TIFFDirectory(inner, layout, at: 12), let settings = ifd.entries[0x2020],
                  let settingsIFD = try? TIFFDirectory(inner, layout, at: layout.int(settings.field, 0, 4)) else { return [] }
            return pointer(settingsIFD, 0x101, 0x102, inner, layout, base: inner.origin)
        }
        if text.hasPrefix("AOC.") {
            // Pentax: byte order at 4, the IFD at 6, offsets from the TIFF header.
            guard let little = order(head, 4), let inner = file.window(start, min(note.count, file.size - start)) else {
                return []
            }
            let layout = TIFFLayout(little: little, big: false)
            guard let ifd = try? TIFFDirectory(inner, layout, at: 6) else { return [] }
            return pointer(ifd, 0x4, 0x3, inner, layout, base: file.origin)
        }
        return []
    }

    /// "II" or "MM" at `at`: little-endian or not; nil for anything else.
    private static func order(_ bytes: [UInt8], _ at: Int) -> Bool? {
        guard at + 1 < bytes.count else { return nil }
        if bytes[at] == 0x49 && bytes[at + 1] == 0x49 { return true }
        if bytes[at] == 0x4D && bytes[at + 1] == 0x4D { return false }
        return nil
    }

    /// A start and a length tag of `ifd`, the start counted from `base`.
    private static func pointer(_ ifd: TIFFDirectory, _ startTag: Int, _ lengthTag: Int, _ file: FileBytes,
                                _ layout: TIFFLayout, base: Int) -> [(offset: Int, length: Int)] {
        guard let start = (try? ifd.value(startTag, file, layout)) ?? nil,
              let length = (try? ifd.value(lengthTag, file, layout)) ?? nil else { return [] }
        return [(base + start, length)]
    }
}
