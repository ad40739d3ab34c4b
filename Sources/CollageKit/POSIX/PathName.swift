import FoundationEssentials
import Glibc

/// A path as the bytes the system uses. Names that are not UTF-8, or that
/// hold spaces, newlines, brackets or a leading dash, are kept exactly.
public struct PathName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The path's bytes, without a terminating NUL.
    public let bytes: [UInt8]

    /// The path of exactly these bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }
    /// The path of the string's UTF-8 bytes.
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// Shown to people: not-UTF-8 bytes become U+FFFD.
    public var description: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether the bytes are valid UTF-8 (else `--json` adds a `_base64` field).
    public var isValidUTF8: Bool { String(validating: bytes, as: UTF8.self) != nil }

    /// Byte order of names, as the contract says.
    public static func < (lhs: PathName, rhs: PathName) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// The path with `component` added after a `/` (none after an empty path or a trailing `/`).
    public func appending(_ component: [UInt8]) -> PathName {
        if bytes.isEmpty { return PathName(bytes: component) }
        if bytes.last == UInt8(ascii: "/") { return PathName(bytes: bytes + component) }
        return PathName(bytes: bytes + [UInt8(ascii: "/")] + component)
    }

    /// The last component ("b.jpg" of "a/b.jpg").
    public var lastComponent: [UInt8] {
        var end = bytes.endIndex
        while end > bytes.startIndex + 1 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        let slice = bytes[..<end]
        if let slash = slice.lastIndex(of: UInt8(ascii: "/")) { return Array(slice[(slash + 1)...]) }
        return Array(slice)
    }

    /// The last component as it appears in the hidden files kept beside an
    /// output (`.NAME.collage-lock`, `.NAME.collage-tmp-…`,
    /// `.NAME.collage-state`): cut to 229 bytes, so that each of those names
    /// stays within NAME_MAX (255 bytes) however long the output's own
    /// (valid) name is. Outputs whose names share those 229 bytes share a
    /// lock, so they take turns and never clear each other's files.
    public var hiddenStem: [UInt8] { Array(lastComponent.prefix(229)) }

    /// The directory holding this path ("." for a bare name).
    public var directory: PathName {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return PathName(".") }
        if slash == bytes.startIndex { return PathName("/") }
        return PathName(bytes: Array(bytes[..<slash]))
    }

    /// The name of the folder holding this file ("2026-08" for
    /// "photos/2026-08/a.jpg"), the real folder's for "." and "..".
    public var folderName: [UInt8] { directory.ownName }

    /// Its last component; for "." or ".." (an INPUT such as `.` or `./`),
    /// the name of the folder they stand for.
    public var ownName: [UInt8] {
        let last = lastComponent
        guard last == Array(".".utf8) || last == Array("..".utf8) else { return last }
        let resolved = withCString { name -> [UInt8]? in
            guard let name, let real = realpath(name, nil) else { return nil }
            defer { free(real) }
            return Array(UnsafeBufferPointer(start: real, count: strlen(real))).map { UInt8(bitPattern: $0) }
        }
        guard let resolved, resolved != Array("/".utf8) else { return last }
        return PathName(bytes: resolved).lastComponent
    }

    /// The lower-cased ASCII extension without the dot ("jpg"), or "".
    public var lowercasedExtension: String {
        let name = lastComponent
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return "" }
        return String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
    }

    /// Whether the path names a directory (following links).
    public var isDirectory: Bool {
        withCString { name in
            guard let name else { return false }
            var info = stat()
            return stat(name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
        }
    }

    /// Calls `body` with a NUL-terminated copy. A path holding a NUL byte
    /// cannot name a file: `body` gets nil.
    public func withCString<R>(_ body: (UnsafePointer<CChar>?) throws -> R) rethrows -> R {
        if bytes.contains(0) { return try body(nil) }
        return try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress) }
        }
    }
}

/// The name of a directory entry from readdir(3), as bytes, read where it
/// lies up to its NUL. Not `entry.pointee.d_name`: that copies all 256
/// bytes `dirent` declares, where the kernel's record holds only the
/// name's, so an entry at the end of readdir's buffer was read past its
/// end (a segfault walking 20,000 photos, when the buffer ended a mapping).
func entryName(_ entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
    let name = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    return Array(UnsafeRawBufferPointer(start: name, count: strlen(name.assumingMemoryBound(to: CChar.self))))
}

/// A failed system call's message, "No such file or directory".
func systemError(_ code: Int32) -> String { String(cString: strerror(code)) }

/// Kept as base64 of its bytes: exact for names that are not UTF-8.
extension PathName: Codable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64"))
        }
        self.init(bytes: Array(data))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Data(bytes).base64EncodedString())
    }
}
