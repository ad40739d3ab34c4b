/// `--frames`' outputs: the template of `--output` with `{stem}` (the
/// video's name without its extension) and `{n}` (its number among the
/// videos, zero-padded to 4 digits) filled in.
enum FilmOutputs {
    static func hasPlaceholder(_ output: PathName) -> Bool {
        FolderOutputs.contains(output.bytes, Array("{stem}".utf8)) || FolderOutputs.contains(output.bytes, Array("{n}".utf8))
    }

    /// The output of the `number`-th video (1-based), `video`. With
    /// `sheets` (`--every`), `{n}` is left for the sheets' numbers.
    static func output(template: PathName, video: PathName, number: Int, sheets: Bool = false) -> PathName {
        let name = video.lastComponent
        let stem = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? Array(name[..<$0]) : nil } ?? name
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        let named = FolderOutputs.replace(template.bytes, Array("{stem}".utf8), with: stem)
        if sheets { return PathName(bytes: named) }
        return PathName(bytes: FolderOutputs.replace(named, Array("{n}".utf8), with: Array(padded.utf8)))
    }
}
