/// `--group-by`'s outputs: `{group}` in `--output` replaced by the group's
/// name, or, without it, `-GROUP` added before the extension (and so before
/// the `-0001` that `--sheets` adds).
enum GroupOutputs {
    static let placeholder = Array("{group}".utf8)

    static func hasPlaceholder(_ output: PathName) -> Bool {
        FolderOutputs.contains(output.bytes, placeholder)
    }

    static func output(template: PathName, group: String) -> PathName {
        let name = Array(group.utf8)
        if hasPlaceholder(template) { return PathName(bytes: FolderOutputs.replace(template.bytes, placeholder, with: name)) }
        let file = template.lastComponent
        let folder = template.bytes.dropLast(file.count)
        let dot = file.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? $0 : nil } ?? file.count
        return PathName(bytes: Array(folder) + file[..<dot] + [UInt8(ascii: "-")] + name + file[dot...])
    }
}
