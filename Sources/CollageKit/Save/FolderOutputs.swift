/// `--per-folder`'s outputs: the template of `--output` with `{dir}` (the
/// folder's name) and `{path}` (its path below the INPUT, `/` replaced by
/// `_`) filled in.
enum FolderOutputs {
    static func hasPlaceholder(_ output: PathName) -> Bool {
        let text = output.bytes
        return contains(text, Array("{dir}".utf8)) || contains(text, Array("{path}".utf8))
    }

    /// The output for `folder`, found under the INPUT `root`.
    static func output(template: PathName, folder: PathName, root: PathName) -> PathName {
        var relative = relativePath(folder: folder, root: root)
        if relative.isEmpty { relative = root.ownName }
        relative = relative.map { $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        let named = replace(template.bytes, Array("{dir}".utf8), with: folder.ownName)
        return PathName(bytes: replace(named, Array("{path}".utf8), with: relative))
    }

    /// The folder's path below the INPUT `root`; empty for `root` itself
    /// (what `--shard` hashes).
    static func relativePath(folder: PathName, root: PathName) -> [UInt8] {
        Array(folder.bytes.dropFirst(root.bytes.count).drop { $0 == UInt8(ascii: "/") })
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.count >= needle.count && (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    static func replace(_ bytes: [UInt8], _ needle: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if index + needle.count <= bytes.count, bytes[index..<(index + needle.count)].elementsEqual(needle) {
                out += replacement
                index += needle.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }
}
