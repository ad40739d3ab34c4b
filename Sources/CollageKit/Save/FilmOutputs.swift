/// `--frames`' outputs: the template of `--output` with the video's
/// `{stem}` (its name without its extension), `{name}` (its whole name),
/// `{ext}` (its extension, without the dot) and `{n}` (its number among
/// the videos, zero-padded to 4 digits) filled in.
enum FilmOutputs {
    /// The fields that name each video's output apart from the others':
    /// `{stem}` and `{name}` per file name, `{n}` per video.
    static func hasPlaceholder(_ output: PathName) -> Bool {
        ["{stem}", "{name}", "{n}"].contains { FolderOutputs.contains(output.bytes, Array($0.utf8)) }
    }

    /// The output of the `number`-th video (1-based), `video`. With
    /// `sheets` (`--every`), `{n}` is left for the sheets' numbers.
    static func output(template: PathName, video: PathName, number: Int, sheets: Bool = false) -> PathName {
        let named = fields(template.bytes, video: video)
        if sheets { return PathName(bytes: named) }
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return PathName(bytes: FolderOutputs.replace(named, Array("{n}".utf8), with: Array(padded.utf8)))
    }

    /// `{stem}`, `{name}` and `{ext}` of `video` filled into `template`.
    static func fields(_ template: [UInt8], video: PathName) -> [UInt8] {
        let name = video.lastComponent
        let dot = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? $0 : nil }
        let stem = dot.map { Array(name[..<$0]) } ?? name
        let ext = dot.map { Array(name[($0 + 1)...]) } ?? []
        var bytes = FolderOutputs.replace(template, Array("{stem}".utf8), with: stem)
        bytes = FolderOutputs.replace(bytes, Array("{name}".utf8), with: name)
        return FolderOutputs.replace(bytes, Array("{ext}".utf8), with: ext)
    }

    /// What to put in `--output` (`template`) so that `video` and `other`,
    /// whose sheets it names alike, are told apart: `{stem}-{ext}` or
    /// `{name}` for one name with two extensions, else `{n}` (one name in
    /// two folders), as the placeholders `template` lacks allow.
    static func clashHint(template: PathName, video: PathName, other: PathName, sheets: Bool) -> String {
        let (one, two) = (video.lastComponent, other.lastComponent)
        let has = { (field: String) in FolderOutputs.contains(template.bytes, Array(field.utf8)) }
        if one != two, !has("{name}") {
            let stems = has("{stem}") ? "{stem}-{ext} or {name}" : "{name}"
            return "use \(stems) in --output: the two differ in their extensions"
        }
        return sheets ? "give the videos other names, or run one at a time: --every numbers its own sheets with {n}"
            : "use {n} in --output (each video's number): the two have the same name in other folders"
    }
}
