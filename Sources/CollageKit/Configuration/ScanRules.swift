import FileFacts
import FoundationEssentials
import Vips

/// What a scan considers: the kinds of file (`--video`, `--raw skip`), the
/// NAS's and OS's debris it never enters, and the `--exclude` patterns.
/// Every walk of a run reads the same rules, so a dry run, a watch, a
/// per-folder run, a shard and `--skip-unchanged` see the same inputs.
public struct ScanRules: Sendable, Equatable {
    /// `--exclude` and `--exclude-from`: what the walk skips below an INPUT folder.
    public var exclusions: [ExcludePattern] = []
    /// `--video`: videos are considered too.
    public var video = false
    /// `--raw preview|full|skip` (default `preview`); `skip` passes RAW photos over.
    public var raw = RawMode.preview
    /// The path below the INPUT of the folder a walk starts at (one folder
    /// of `--per-folder`), which the exclusions are matched below.
    public var below: [UInt8] = []

    /// No exclusions, no videos, RAW photos from their preview.
    public init() {}

    /// Folders a scan never enters (a NAS's thumbnails and recycle bins,
    /// an OS's recovery folders), lower case: names are compared in any case.
    public static let debrisFolders: Set<[UInt8]> = Set([
        "@eadir", "#recycle", "#snapshot", "@recycle", "@recently-snapshot", "$recycle.bin",
        "system volume information", "lost+found",
    ].map { Array($0.utf8) })

    /// Files a scan never takes: Synology's thumbnails, Windows' thumbnail
    /// cache and folder settings (any case).
    public static func isDebris(_ name: [UInt8]) -> Bool {
        let lowered = name.map(asciiLowercased)
        return debrisFolders.contains(lowered) || lowered == Array("thumbs.db".utf8)
            || lowered == Array("desktop.ini".utf8) || lowered.starts(with: Array("synophoto_thumb_".utf8))
    }

    /// What a folder scan does with a file of this name.
    func inFolder(_ name: [UInt8]) -> Verdict {
        switch Self.kind(of: name) {
        case .image: return .consider
        case .raw: return raw == .skip ? .passOver(.raw) : .consider
        case .video: return video ? .consider : .passOver(.video)
        case .sidecar: return .passOver(.sidecar)
        case .other: return .ignore
        }
    }

    /// What happens to a file a person named: on standard input, sidecars
    /// and (without `--video`) videos are passed over; RAW files with `--raw
    /// skip` wherever they are named; everything else is tried.
    func named(_ name: [UInt8], onStandardInput: Bool) -> Verdict {
        switch Self.kind(of: name) {
        case .raw where raw == .skip: return .passOver(.raw)
        case .sidecar where onStandardInput: return .passOver(.sidecar)
        case .video where onStandardInput && !video: return .passOver(.video)
        default: return .consider
        }
    }

    enum Verdict: Equatable {
        case consider
        case passOver(PassedOverKind)
        case ignore
    }

    /// Whether a path below the INPUT is excluded. `folder`: whether it is
    /// one, nil when not known yet (then only the patterns for any kind of
    /// entry are tried; `excludesFolder` tries the others once it is known).
    func excludes(_ relative: [UInt8], folder: Bool?) -> Bool {
        exclusions.contains { pattern in
            if let folder { return pattern.matches(relative[...], folder: folder) }
            return !pattern.foldersOnly && pattern.matches(relative[...], folder: false)
        }
    }

    /// The folder-only patterns, for an entry found to be a folder.
    func excludesFolder(_ relative: [UInt8]) -> Bool {
        exclusions.contains { $0.foldersOnly && $0.matches(relative[...], folder: true) }
    }

    /// The path below the INPUT of `name` in a folder at `folder` below it.
    static func relative(_ name: [UInt8], in folder: [UInt8]) -> [UInt8] {
        folder.isEmpty ? name : folder + [UInt8(ascii: "/")] + name
    }

    /// The kind of a file by its name's extension (any case).
    static func kind(of name: [UInt8]) -> FileKind {
        FileKind.of(extension: lowercasedExtension(name))
    }

    static func lowercasedExtension(_ name: [UInt8]) -> String {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return "" }
        return String(decoding: name[(dot + 1)...].map(asciiLowercased), as: UTF8.self)
    }

    /// What `--skip-unchanged` compares: empty for the default rules, so
    /// that the states of earlier runs still match.
    var signature: String {
        var parts: [String] = []
        if video { parts.append("video") }
        if raw != .preview { parts.append("raw=\(raw.rawValue)") }
        parts += exclusions.map { "exclude=" + Data($0.source).base64EncodedString() }
        return parts.joined(separator: " ")
    }

    /// Patterns from a file's bytes: one a line, lines starting with `#`
    /// and blank lines ignored, a CR before the newline dropped; a bad
    /// pattern is reported with its line number.
    public static func patterns(fromFile bytes: [UInt8]) throws(ExcludeError) -> [ExcludePattern] {
        var patterns: [ExcludePattern] = []
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var text = Array(line)
            if text.last == UInt8(ascii: "\r") { text.removeLast() }
            if text.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            if text.first == UInt8(ascii: "#") { continue }
            do { patterns.append(try ExcludePattern(text)) } catch {
                throw ExcludeError("line \(number + 1): '\(String(decoding: text, as: UTF8.self))': \(error)")
            }
        }
        return patterns
    }
}

func asciiLowercased(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
}
