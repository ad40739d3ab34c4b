extension StructureCheck {
    /// HEIF brands libvips' loader takes (the major brand of `ftyp`).
    static let heifBrands: Set<String> = ["heic", "heix", "hevc", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "avif"]

    /// The format the first bytes announce, as libvips names its loaders:
    /// the check must run before libvips' own sniffing, which for TIFF
    /// already has libtiff read the first IFD.
    static func sniff(_ file: FileBytes) throws -> String? {
        guard let head = try file.read(0, min(16, file.size)), head.count >= 4 else { return nil }
        if head.starts(with: PNGStructure.signature.prefix(head.count)) && head.count >= 8 { return "png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if head.starts(with: Array("GIF8".utf8)) { return "gif" }
        if head.starts(with: JXLStructure.codestreamSignature) { return "jxl" }
        if head.starts(with: JXLStructure.containerSignature.prefix(head.count)) && head.count >= 12 { return "jxl" }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) {
            return "tiff"
        }
        guard head.count >= 12 else { return nil }
        if head.fourCC(0) == "RIFF" && head.fourCC(8) == "WEBP" { return "webp" }
        if head.fourCC(4) == "ftyp" && heifBrands.contains(head.fourCC(8)) { return "heif" }
        return nil
    }
}
