import FileFacts
import Vips

/// Where each collage goes.
struct OutputNaming: Sendable, Equatable {
    let path: PathName
    let sheets: Bool

    init(path: PathName, sheets: Bool) {
        self.path = path
        self.sheets = sheets
    }

    /// libvips' saver suffix for the output's extension, or nil if we cannot
    /// write it. A PDF's pictures are JPEG.
    var saverSuffix: String? { isDocument ? ".jpg" : ImageFormat.saverSuffix(extension: path.lowercasedExtension) }

    /// `-o NAME.pdf`: one document holding every sheet, a page each.
    var isDocument: Bool { path.lowercasedExtension == "pdf" }

    /// Sheet k (1-based): PATH itself without `--sheets`; with it, `{n}`
    /// replaced by k zero-padded to 4 digits, or `-0001` inserted before the
    /// extension when PATH has no `{n}`.
    func path(forSheet sheet: Int) -> PathName {
        guard sheets, !isDocument else { return path }
        var number = String(sheet)
        if number.count < 4 { number = String(repeating: "0", count: 4 - number.count) + number }
        if let range = Self.firstRange(of: Array("{n}".utf8), in: path.bytes) {
            return PathName(bytes: path.bytes[..<range.lowerBound] + Array(number.utf8) + path.bytes[range.upperBound...])
        }
        let name = path.lastComponent
        let folder = path.bytes.dropLast(name.count)
        let insertAt: Int
        if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 { insertAt = dot } else { insertAt = name.count }
        return PathName(bytes: Array(folder) + name[..<insertAt] + Array(("-" + number).utf8) + name[insertAt...])
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return start..<start + needle.count
        }
        return nil
    }
}
