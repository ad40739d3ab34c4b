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
        // As a player resolves a cue's image against the VTT's own address:
        // relative to its folder whatever -o and --vtt are (absolute, other
        // folders, through ..), never a path from the root, percent-encoded.
        let links = PageLinks(page: vtt)
        var text = "WEBVTT\n"
        for (index, cue) in sorted.enumerated() {
            let end = index + 1 < sorted.count ? sorted[index + 1].time : Swift.max(duration, cue.time)
            let sheet = links.href(cue.sheet)
            let rect = cue.rect
            text += "\n\(Self.stamp(cue.time)) --> \(Self.stamp(end))\n\(sheet)#xywh=\(rect.x),\(rect.y),\(rect.width),\(rect.height)\n"
        }
        return Array(text.utf8)
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
