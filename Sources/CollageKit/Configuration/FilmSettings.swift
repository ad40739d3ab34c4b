import Media

/// `--frames N` and `--scenes`: each video its own sheet of N frames.
public struct FilmSettings: Sendable, Equatable {
    /// N: the frames of each sheet.
    public var count: Int
    /// `--scenes`: the N most distinct shots instead of N spread times.
    public var scenes = false
    /// `--every SECONDS`: a frame at each multiple of it, `count` a sheet.
    public var every: Double?
    /// `--vtt PATH`: where each video's WebVTT cues go (`{stem}` its name).
    public var vtt: PathName?

    /// N frames spread over each film (`scenes`: its most distinct shots;
    /// `every`: one every so many seconds, `count` a sheet).
    public init(count: Int, scenes: Bool = false, every: Double? = nil, vtt: PathName? = nil) {
        (self.count, self.scenes, self.every, self.vtt) = (count, scenes, every, vtt)
    }

    /// The tiles of each `--every` sheet without `--max` or `--tile`.
    static let everyTiles = 25

    /// Each tile's caption without `--label`: its time.
    static let defaultLabel = try? Template("{time}", fields: Template.labelFields)
    /// Each sheet's title without `--title`: a header like vcsi's.
    static let defaultTitle = try? Template("{file} · {size} · {duration} · {resolution} · {fps} fps · {codec} · "
                                            + "{bitrate} · {audio}", fields: Template.titleFields)
}

/// What a film's header says: its facts and its file's size.
struct FilmHeader: Sendable, Equatable {
    let facts: FilmFacts
    let path: PathName
    let bytes: Int

    /// A title field's text, or nil if the field is not a film's.
    func field(_ name: String) -> String? {
        switch name {
        case "file": String(decoding: path.lastComponent, as: UTF8.self)
        case "size": Self.size(bytes)
        case "duration": Captions.clock(facts.duration)
        case "resolution": "\(facts.width)x\(facts.height)"
        case "fps": facts.frameRate > 0 ? Self.decimal(facts.frameRate) : "?"
        case "codec": facts.codec
        case "bitrate": facts.bitRate > 0 ? "\(Int((Double(facts.bitRate) / 1000).rounded())) kb/s" : "?"
        case "audio": facts.audioCodec.isEmpty ? "no audio" : "\(facts.audioCodec) \(Self.channels(facts.audioChannels))"
        default: nil
        }
    }

    /// "1.4 GiB", "23.5 MiB", "812 KiB".
    static func size(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) B" : "\(decimal(value)) \(units[unit])"
    }

    /// At most two decimals, none when whole: "25", "29.97", "23.5".
    static func decimal(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let whole = hundredths / 100, rest = hundredths % 100
        if rest == 0 { return String(whole) }
        return rest % 10 == 0 ? "\(whole).\(rest / 10)" : "\(whole).\(rest < 10 ? "0" : "")\(rest)"
    }

    static func channels(_ count: Int) -> String {
        switch count {
        case 1: "mono"
        case 2: "stereo"
        case 6: "5.1"
        case 8: "7.1"
        default: "\(count) ch"
        }
    }
}
