import Glibc

/// `--vtt PATH`: WebVTT cues, one per frame, from its time to the next
/// frame's (the last to the film's end), each pointing at its tile
/// (`sheet-0001.jpg#xywh=X,Y,W,H`, as video.js, Plyr and JW Player read
/// seek-bar sprites), sheet paths relative to PATH's folder, as URLs.
struct FilmCues: Sendable, Equatable {
    /// A frame's tile: its time, its sheet's path and its rectangle there.
    struct Cue: Sendable, Equatable {
        let time: Double
        let sheet: PathName
        let rect: TileRect
    }

    var cues: [Cue] = []

    /// `{stem}`, `{name}` and `{ext}` in PATH replaced by the video's, as in `--output`.
    static func path(template: PathName, video: PathName) -> PathName {
        PathName(bytes: FilmOutputs.fields(template.bytes, video: video))
    }

    /// The WebVTT file, cues in time order, for a film `duration` seconds long.
    func text(duration: Double, at vtt: PathName) -> [UInt8] {
        let sorted = cues.sorted { $0.time < $1.time }
        var text = "WEBVTT\n"
        for (index, cue) in sorted.enumerated() {
            let end = index + 1 < sorted.count ? sorted[index + 1].time : Swift.max(duration, cue.time)
            let sheet = Self.urlPath(Self.relative(cue.sheet, to: vtt.directory))
            let rect = cue.rect
            text += "\n\(Self.stamp(cue.time)) --> \(Self.stamp(end))\n\(sheet)#xywh=\(rect.x),\(rect.y),\(rect.width),\(rect.height)\n"
        }
        return Array(text.utf8)
    }

    /// `path` as seen from `folder`, as a browser resolves a cue's image
    /// against the VTT's own address: both folders made absolute (the
    /// working directory before a relative one), their symbolic links
    /// resolved where they exist, `.` and `..` taken away; then `../` for
    /// each of `folder`'s parts below the two's common part, and the rest of
    /// `path`. Whatever `-o` and `--vtt` are (absolute, relative, in other
    /// folders, through `..`), the cue never names an absolute path.
    static func relative(_ path: PathName, to folder: PathName) -> PathName {
        let from = absoluteParts(folder), to = absoluteParts(path.directory)
        let common = zip(from, to).prefix { $0 == $1 }.count
        let up = Array(repeating: Array("..".utf8), count: from.count - common)
        let parts = up + Array(to[common...]) + [path.lastComponent]
        return PathName(bytes: Array(parts.joined(separator: [UInt8(ascii: "/")])))
    }

    /// The components of `folder` as an absolute path: resolved by
    /// realpath(3) where it exists, else (or for what does not exist yet)
    /// read as written from the working directory, `.` and `..` folded.
    static func absoluteParts(_ folder: PathName) -> [[UInt8]] {
        if let real = folder.withCString({ name -> [UInt8]? in
            guard let name, let real = realpath(name, nil) else { return nil }
            defer { free(real) }
            return Array(UnsafeBufferPointer(start: real, count: strlen(real))).map { UInt8(bitPattern: $0) }
        }) {
            return real.split(separator: UInt8(ascii: "/")).map(Array.init)
        }
        var bytes = folder.bytes
        if bytes.first != UInt8(ascii: "/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) } + [UInt8(ascii: "/")] + bytes
            }
        }
        var parts: [[UInt8]] = []
        for part in bytes.split(separator: UInt8(ascii: "/")) {
            if part.elementsEqual(".".utf8) { continue }
            if part.elementsEqual("..".utf8) { _ = parts.popLast(); continue }
            parts.append(Array(part))
        }
        return parts
    }

    /// A path as a URL's path: each byte that a URL cannot hold as it is
    /// (a space, `#`, `%`, `?`, anything outside ASCII) percent-encoded, so
    /// that a player reads the name, and not a fragment, from the cue.
    static func urlPath(_ path: PathName) -> String {
        let kept = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/!$&'()*+,;=:@".utf8))
        let hex = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for byte in path.bytes {
            if kept.contains(byte) { text.append(byte) } else {
                text += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// WebVTT's time: `HH:MM:SS.mmm`.
    static func stamp(_ seconds: Double) -> String {
        let total = Int((Swift.max(0, seconds) * 1000).rounded())
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: Swift.max(0, width - text.count)) + text
        }
        return "\(pad(total / 3_600_000, 2)):\(pad(total / 60_000 % 60, 2)):\(pad(total / 1000 % 60, 2)).\(pad(total % 1000, 3))"
    }
}
