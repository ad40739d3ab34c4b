/// What a file's first bytes say it is, before any decoder sees it.
public enum ContentKind: Sendable, Equatable {
    /// An image for libvips: its loader's short name ("jpeg", "png", ...).
    case image(String)
    /// A camera RAW photo: for LibRaw, never libvips' TIFF loader (which
    /// calls CR2 and NEF corrupt and draws a Bayer DNG as its grey mosaic).
    case raw
    /// A video: for FFmpeg.
    case video
    case unknown
}

extension StructureCheck {
    /// HEIF brands libvips' loader takes (the major brand of `ftyp`).
    static let heifBrands: Set<String> = ["heic", "heix", "hevc", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "avif"]

    /// ISO base media brands of videos (MP4, QuickTime, 3GP, M4V, XAVC);
    /// Canon's CR3 ("crx ") is a RAW photo in the same boxes.
    static let videoBrands: Set<String> = [
        "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "qt  ",
        "3gp4", "3gp5", "3gp6", "3gg6", "3g2a", "3g2b", "3g2c", "MSNV", "dash", "mmp4", "XAVC", "f4v ", "NDAS",
    ]

    /// What the file open on `descriptor` is, from its first bytes (and,
    /// for a TIFF, its directories: `RawStructure.isRaw`).
    public static func content(descriptor: Int32) throws -> ContentKind {
        let file = try FileBytes(descriptor: descriptor)
        switch try sniff(file) {
        case "raw"?: return .raw
        case "video"?: return .video
        case let format?: return .image(format)
        case nil: return .unknown
        }
    }

    /// The format the first bytes announce, as libvips names its loaders,
    /// or "raw" or "video": the check must run before libvips' own
    /// sniffing, which for TIFF already has libtiff read the first IFD.
    static func sniff(_ file: FileBytes) throws -> String? {
        guard let head = try file.read(0, min(16, file.size)), head.count >= 4 else { return nil }
        if head.starts(with: PNGStructure.signature.prefix(head.count)) && head.count >= 8 { return "png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if head.starts(with: Array("GIF8".utf8)) { return "gif" }
        if head.starts(with: JXLStructure.codestreamSignature) { return "jxl" }
        if head.starts(with: JXLStructure.containerSignature.prefix(head.count)) && head.count >= 12 { return "jxl" }
        if RawStructure.magic(head) { return "raw" }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) {
            return RawStructure.isRaw(file) ? "raw" : "tiff"
        }
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return "video" }  // Matroska, WebM
        guard head.count >= 12 else { return nil }
        if head.fourCC(0) == "RIFF" && head.fourCC(8) == "WEBP" { return "webp" }
        if head.fourCC(0) == "RIFF" && head.fourCC(8) == "AVI " { return "video" }
        if head.fourCC(4) == "ftyp" {
            let brand = head.fourCC(8)
            if heifBrands.contains(brand) { return "heif" }
            if brand == "crx " { return "raw" }
            if videoBrands.contains(brand) { return "video" }
        }
        // QuickTime files older than ftyp start with any of these atoms.
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(head.fourCC(4)), head.be32(0) >= 8 { return "video" }
        if try transportStream(file) { return "video" }
        return nil
    }

    /// MPEG transport streams (.mts, .m2ts): a sync byte every 188 bytes,
    /// or every 192 behind a 4-byte time code.
    private static func transportStream(_ file: FileBytes) throws -> Bool {
        guard let head = try file.read(0, min(4 + 192 * 3, file.size)) else { return false }
        func synced(_ start: Int, _ stride: Int) -> Bool {
            (0..<3).allSatisfy { start + $0 * stride < head.count && head[start + $0 * stride] == 0x47 }
        }
        return head.count >= 4 + 192 * 2 + 1 && (synced(0, 188) || synced(4, 192))
    }
}
