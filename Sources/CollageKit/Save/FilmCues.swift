/// `--vtt PATH`: WebVTT cues, one per frame, from its time to the next
/// frame's (the last to the film's end), each pointing at its tile
/// (`sheet-0001.jpg#xywh=X,Y,W,H`, as video.js, Plyr and JW Player read
/// seek-bar sprites), sheet paths relative to PATH's folder.
struct FilmCues: Sendable, Equatable {
    /// A frame's tile: its time, its sheet's path and its rectangle there.
    struct Cue: Sendable, Equatable {
        let time: Double
        let sheet: PathName
        let rect: TileRect
    }

    var cues: [Cue] = []

    /// `{stem}` in PATH replaced by the video's name without its extension.
    static func path(template: PathName, video: PathName) -> PathName {
        let name = video.lastComponent
        let stem = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? Array(name[..<$0]) : nil } ?? name
        return PathName(bytes: FolderOutputs.replace(template.bytes, Array("{stem}".utf8), with: stem))
    }

    /// The WebVTT file, cues in time order, for a film `duration` seconds long.
    func text(duration: Double, at vtt: PathName) -> [UInt8] {
        let sorted = cues.sorted { $0.time < $1.time }
        var text = "WEBVTT\n"
        for (index, cue) in sorted.enumerated() {
            let end = index + 1 < sorted.count ? sorted[index + 1].time : Swift.max(duration, cue.time)
            let sheet = String(decoding: Self.relative(cue.sheet, to: vtt.directory).bytes, as: UTF8.self)
            let rect = cue.rect
            text += "\n\(Self.stamp(cue.time)) --> \(Self.stamp(end))\n\(sheet)#xywh=\(rect.x),\(rect.y),\(rect.width),\(rect.height)\n"
        }
        return Array(text.utf8)
    }

    /// `path` as seen from `folder`: below it, the rest; both relative to
    /// the same place, with `../` for each of `folder`'s parts; else as it is.
    static func relative(_ path: PathName, to folder: PathName) -> PathName {
        let bytes = path.bytes, base = folder.bytes
        if base == Array(".".utf8) || base.isEmpty { return path }
        if bytes.starts(with: base + [UInt8(ascii: "/")]) { return PathName(bytes: Array(bytes.dropFirst(base.count + 1))) }
        let absolute = bytes.first == UInt8(ascii: "/")
        guard absolute == (base.first == UInt8(ascii: "/")), !absolute,
              !base.split(separator: UInt8(ascii: "/")).contains(where: { $0.elementsEqual("..".utf8) }) else { return path }
        let up = base.split(separator: UInt8(ascii: "/")).filter { !$0.elementsEqual(".".utf8) }.count
        return PathName(bytes: Array(String(repeating: "../", count: up).utf8) + bytes)
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
