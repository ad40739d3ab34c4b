/// The hidden files a run keeps beside an output, named in one place:
/// `.NAME.collage-lock` (runs writing the same output take turns),
/// `.NAME.collage-state` (what `--skip-unchanged` compares) and
/// `.NAME.collage-tmp-XXXXXXXXXXXX` (a file being written). NAME is the
/// output's name cut to 229 bytes, so that every sidecar name fits in 255.
enum Sidecar {
    static func lock(for output: PathName) -> PathName { beside(output, ".collage-lock") }

    static func state(for output: PathName) -> PathName { beside(output, ".collage-state") }

    /// The start of a temporary file's name; twelve random letters follow.
    static func temporaryPrefix(stem: [UInt8]) -> [UInt8] {
        Array(".".utf8) + stem + Array(".collage-tmp-".utf8)
    }

    private static func beside(_ output: PathName, _ suffix: String) -> PathName {
        output.directory.appending(Array(".".utf8) + output.hiddenStem + Array(suffix.utf8))
    }
}

extension PathName {
    /// Where the XMP sidecars of the photo at this path would be, in the
    /// order they are tried: `NAME.EXT.xmp` (darktable's, naming this very
    /// file), then `NAME.xmp` (Lightroom's and digiKam's, which a RAW photo
    /// and its JPEG share).
    var xmpSidecars: [PathName] {
        let name = lastComponent
        guard !name.isEmpty else { return [] }
        let xmp = Array(".xmp".utf8)
        var names = [directory.appending(name + xmp)]
        if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex {
            names.append(directory.appending(Array(name[..<dot]) + xmp))
        }
        return names
    }

    /// The XMP sidecars of a still shown for its shot (a JPEG beside its
    /// RAW photo or movie), in the order they are tried: its own
    /// `NAME.EXT.xmp`, then each partner's (darktable keeps the RAW's
    /// edits, its rating too, in `NAME.CR3.xmp`), then the shared `NAME.xmp`.
    func xmpSidecars(partners: [PathName]) -> [PathName] {
        let own = xmpSidecars
        guard !partners.isEmpty, let first = own.first else { return own }
        return [first] + partners.map { $0.directory.appending($0.lastComponent + Array(".xmp".utf8)) } + own.dropFirst()
    }
}
