import Glibc

/// How the `--html` page links to a file: a path relative to the page's
/// folder, percent-encoded, so the page and the photos can move together.
///
/// Both sides are taken from real paths (`realpath` of the folders), so an
/// INPUT given as relative or absolute, through `..` or a symbolic link to
/// a folder, gives the link the kernel would follow from the page's real
/// folder. A file's own name is kept (a link to a file stays that link).
struct PageLinks: Sendable {
    /// The page's folder, as absolute components.
    let base: [[UInt8]]

    init(page: PathName) {
        base = Self.components(Self.realFolder(of: page))
    }

    func href(_ path: PathName) -> String {
        let target = Self.components(Self.realFolder(of: path)) + [path.lastComponent]
        var common = 0
        while common < base.count, common < target.count - 1, base[common] == target[common] { common += 1 }
        let up = [[UInt8]](repeating: Array("..".utf8), count: base.count - common)
        return (up + target[common...]).map(Self.percentEncoded).joined(separator: "/")
    }

    /// A file's folder as an absolute real path: `realpath` when it exists,
    /// else made absolute from the working folder without `.` and `..`.
    static func realFolder(of path: PathName) -> [UInt8] {
        let folder = path.directory
        if let real = folder.withCString({ $0.flatMap { realpath($0, nil) } }) {
            defer { free(real) }
            return Array(UnsafeBufferPointer(start: real, count: strlen(real))).map { UInt8(bitPattern: $0) }
        }
        var bytes = folder.bytes
        if bytes.first != UInt8(ascii: "/"), let cwd = getcwd(nil, 0) {
            defer { free(cwd) }
            bytes = Array(UnsafeBufferPointer(start: cwd, count: strlen(cwd))).map { UInt8(bitPattern: $0) }
                + [UInt8(ascii: "/")] + bytes
        }
        var kept: [[UInt8]] = []
        for part in components(bytes) {
            if part == Array("..".utf8) { _ = kept.popLast() } else { kept.append(part) }
        }
        return [UInt8(ascii: "/")] + Array(kept.joined(separator: [UInt8(ascii: "/")]))
    }

    static func components(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "/")).map(Array.init).filter { $0 != Array(".".utf8) }
    }

    /// Every byte but the unreserved ones of RFC 3986 as `%XX`: spaces, `#`,
    /// `?`, `%`, `:` (which would start a scheme) and bytes that are not
    /// UTF-8 all stay part of the name, and nothing needs HTML escaping.
    static func percentEncoded(_ component: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in component {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
